/**
 * Jest setup (jest.config.js `setupFiles`): every fast-check property in every test file runs from a known seed, so
 * no run depends on luck and a failure can be replayed. fast-check prints the seed and the counterexample's path in
 * the error of a failing property; nothing may turn that report off (no `verbose: 0`, no custom reporter).
 *
 * `FC_SEED` unset: the fixed seed below. `FC_SEED=<integer>`: that seed (replay a reported failure).
 * `FC_SEED=random`: a fresh seed, printed first, to explore; a counterexample found that way becomes a fixed case
 * (`examples`) of its test. A property that sets its own `seed` keeps it.
 */
import fc from 'fast-check';

const FIXED_SEED = 20_260_420;

function chooseSeed(raw: string | undefined): number {
  if (raw === undefined || raw === '') return FIXED_SEED;
  if (raw === 'random') {
    const seed = (Date.now() ^ (Math.random() * 0x100000000)) | 0;
    process.stderr.write(`fast-check: FC_SEED=random chose seed ${seed} (FC_SEED=${seed} replays it)\n`);
    return seed;
  }
  const seed = Number(raw);
  if (!Number.isInteger(seed) || seed < -0x80000000 || seed > 0x7fffffff) {
    throw new Error(`FC_SEED must be a 32-bit integer or "random", got ${JSON.stringify(raw)}`);
  }
  return seed;
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: chooseSeed(process.env.FC_SEED) });
