import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { CONFIGURATION_DOC, configurationDocProblem, renderConfigurationDoc } from '../gateway/host/config/docs';
import { EXAMPLE_CONFIG, exampleConfigProblem, renderExampleConfig } from '../gateway/host/config/example';
import { PROJECT_ROOT } from '../gateway/host/paths';

/** What `npm run docs` writes from the settings' metadata: the reference table and the example configuration file. */
const OUTPUTS = [
  { file: CONFIGURATION_DOC, render: renderConfigurationDoc, problem: configurationDocProblem },
  { file: EXAMPLE_CONFIG, render: renderExampleConfig, problem: exampleConfigProblem },
];

/**
 * `npm run docs`: writes docs/configuration.md and deploy/onegraph.example.yaml from the settings' metadata; `--check`
 * only says whether they are fresh.
 */
function main(): void {
  const check = process.argv.includes('--check');
  let stale = false;
  for (const output of OUTPUTS) {
    const file = relative(PROJECT_ROOT, output.file);
    if (check) {
      const problem = output.problem(existsSync(output.file) ? readFileSync(output.file, 'utf8') : undefined);
      if (problem) console.error(problem);
      else console.log(`${file} is fresh`);
      stale ||= problem !== undefined;
      continue;
    }
    mkdirSync(dirname(output.file), { recursive: true });
    writeFileSync(output.file, output.render());
    console.log(`wrote ${file}`);
  }
  if (stale) process.exit(1);
}

main();
