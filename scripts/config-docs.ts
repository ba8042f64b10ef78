import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, relative } from 'node:path';
import { CONFIGURATION_DOC, configurationDocProblem, renderConfigurationDoc } from '../gateway/host/config/docs';
import { PROJECT_ROOT } from '../gateway/host/paths';

/** `npm run docs`: writes docs/configuration.md from the settings' metadata; `--check` only says whether it is fresh. */
function main(): void {
  const doc = renderConfigurationDoc();
  const file = relative(PROJECT_ROOT, CONFIGURATION_DOC);
  if (process.argv.includes('--check')) {
    const problem = configurationDocProblem(
      existsSync(CONFIGURATION_DOC) ? readFileSync(CONFIGURATION_DOC, 'utf8') : undefined,
    );
    if (problem) {
      console.error(problem);
      process.exit(1);
    }
    console.log(`${file} is fresh`);
    return;
  }
  mkdirSync(dirname(CONFIGURATION_DOC), { recursive: true });
  writeFileSync(CONFIGURATION_DOC, doc);
  console.log(`wrote ${file}`);
}

main();
