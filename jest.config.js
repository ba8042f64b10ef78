/** Jest runs the TypeScript sources through ts-jest in transpile-only mode (type checking is `tsc`'s job in
 * `npm test`); ts-jest emits the decorator metadata type-graphql needs. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>'],
  // Stress tests (*.stress.test.ts) load the CPU on purpose: they run alone, after everything else (npm run test:stress).
  testPathIgnorePatterns: ['/node_modules/', '/dist/', '\\.stress\\.test\\.ts$'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }],
    // The OTLP exporter loads node:http with import(), which Jest's module sandbox runs only under
    // --experimental-vm-modules: compiled to CommonJS (as Node runs it outside Jest) it is a require.
    '/@opentelemetry/otlp-exporter-base/.+\\.js$': ['ts-jest', { tsconfig: { allowJs: true, module: 'commonjs' } }],
  },
  transformIgnorePatterns: ['^(?!.*/@opentelemetry/otlp-exporter-base/).*/node_modules/'],
  setupFiles: ['reflect-metadata', '<rootDir>/test/support/fast-check-seed.ts'],
  // one temporary root per run (TMPDIR), removed at the end: nothing a test leaves stays on the machine
  globalSetup: '<rootDir>/test/support/jest-global-setup.js',
  globalTeardown: '<rootDir>/test/support/jest-global-teardown.js',
  testTimeout: 30000,
  maxWorkers: 2,
};
