/** Jest runs the TypeScript sources through ts-jest in transpile-only mode (type checking is `tsc`'s job in
 * `npm test`); ts-jest emits the decorator metadata type-graphql needs. */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>'],
  testPathIgnorePatterns: ['/node_modules/', '/dist/'],
  testMatch: ['**/*.test.ts'],
  transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.json' }] },
  setupFiles: ['reflect-metadata', '<rootDir>/test/helpers/fast-check-seed.ts'],
  testTimeout: 30000,
  maxWorkers: 2,
};
