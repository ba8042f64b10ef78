import { createGoogleProvider } from './google';
import type { MarketProvider } from './provider';
import { createSimulatedProvider } from './simulated';

export interface ProviderSettings {
  provider: 'simulated' | 'google';
  seed?: string;
  /** Fixed clock for the simulated market (epoch ms); unset = real time. */
  fixedTime?: number;
  googleBaseUrl?: string;
  timeoutMs?: number;
  retries?: number;
  /** Where the google provider reports upstream values it had to drop. */
  log?: { warn(obj: object, msg: string): void };
}

export function createMarketProvider(settings: ProviderSettings): MarketProvider {
  if (settings.provider === 'google') {
    return createGoogleProvider({
      baseUrl: settings.googleBaseUrl,
      timeoutMs: settings.timeoutMs,
      retries: settings.retries,
      log: settings.log,
    });
  }
  const fixed = settings.fixedTime;
  return createSimulatedProvider({ seed: settings.seed, now: fixed === undefined ? Date.now : () => fixed });
}
