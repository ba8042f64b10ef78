import { runInThisContext } from 'node:vm';

/**
 * Test helper: records every error that escapes to the process — uncaught exceptions and unhandled promise
 * rejections — from now until `stop()`. The listeners go on the real process object: Jest gives each test file a
 * copy of `process` whose listeners Node never calls (vm.runInThisContext evaluates in the main context, whose
 * `process` is the real one).
 */
export function watchEscapes(): { escaped: string[]; stop(): void } {
  const real = runInThisContext('process') as NodeJS.Process;
  const escaped: string[] = [];
  const onException = (err: unknown): void => void escaped.push(`uncaught exception: ${describe(err)}`);
  const onRejection = (reason: unknown): void => void escaped.push(`unhandled rejection: ${describe(reason)}`);
  real.on('uncaughtException', onException);
  real.on('unhandledRejection', onRejection);
  return {
    escaped,
    stop() {
      real.off('uncaughtException', onException);
      real.off('unhandledRejection', onRejection);
    },
  };
}

function describe(err: unknown): string {
  return err instanceof Error ? (err.stack ?? err.message) : String(err);
}
