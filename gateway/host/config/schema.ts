import { z } from 'zod';
import { signingTimes, signingTimesProblem } from '../../../dns/dnssec';
import type { SigningPolicy } from '../../../dns/zone';
import { envNames } from '../../../platform/settings';
import { DnsApiConfigSchema } from '../../../subgraphs/dns-api/config';
import { DnsToolConfigSchema } from '../../../subgraphs/dns-tool/config';
import { MarketConfigSchema } from '../../../subgraphs/market/config';
import { DnsServerSettings } from './dns-settings';
import { GraphSettings } from './graph-settings';
import { ProcessSettings } from './process-settings';
import { TracingSettings } from './tracing-settings';

export { LOOPBACK_PROXIES } from './process-settings';

/**
 * The sections the one configuration is composed of: the host's own, then each subgraph's (it owns its keys in its
 * config.ts). All keys are top-level keys of the file; the documentation lists them section by section.
 */
export const CONFIG_SECTIONS = [
  { title: 'Process', source: 'gateway/host/config/process-settings.ts', schema: ProcessSettings },
  {
    title: 'Graph: limits, response cache, persisted queries, live streams',
    source: 'gateway/host/config/graph-settings.ts',
    schema: GraphSettings,
  },
  { title: 'Tracing (OpenTelemetry)', source: 'gateway/host/config/tracing-settings.ts', schema: TracingSettings },
  { title: 'DNS server', source: 'gateway/host/config/dns-settings.ts', schema: DnsServerSettings },
  { title: 'Market subgraph', source: 'subgraphs/market/config.ts', schema: MarketConfigSchema },
  { title: 'DNS API subgraph', source: 'subgraphs/dns-api/config.ts', schema: DnsApiConfigSchema },
  { title: 'DNS tool subgraph', source: 'subgraphs/dns-tool/config.ts', schema: DnsToolConfigSchema },
] as const;

const shape = {
  ...ProcessSettings.shape,
  ...GraphSettings.shape,
  ...TracingSettings.shape,
  ...DnsServerSettings.shape,
  ...MarketConfigSchema.shape,
  ...DnsApiConfigSchema.shape,
  ...DnsToolConfigSchema.shape,
};

/** The one validated configuration. Keys are camelCase in files; each section's metadata names its environment variables. */
export const ConfigSchema = z
  .object(shape)
  .strict()
  .refine((c) => c.workers === 1 || c.supergraphFile !== undefined, {
    path: ['workers'],
    message:
      'more than one worker needs SUPERGRAPH_FILE (a general gateway over remote subgraphs): the all-in-one process runs the DNS server, the zone store and the live hub, which exist once',
  })
  .refine((c) => c.liveMaxBufferedBytes >= c.liveMaxStreamBufferBytes, {
    path: ['liveMaxBufferedBytes'],
    message: "must be at least liveMaxStreamBufferBytes (one stream's bound)",
  })
  .refine((c) => !c.persistedDocumentsOnly || c.persistedDocuments !== undefined, {
    path: ['persistedDocumentsOnly'],
    message: 'needs PERSISTED_DOCUMENTS (the manifest of the documents allowed to run)',
  })
  .refine((c) => c.masterKey === undefined || c.masterKeyFile === undefined, {
    path: ['masterKeyFile'],
    message: 'give the master key once: MASTER_KEY or MASTER_KEY_FILE, not both',
  })
  .superRefine((c, ctx) => {
    const problem = signingTimesProblem(signingTimes(signingPolicyOf(c)));
    if (problem) ctx.addIssue({ code: 'custom', path: ['dnssecSignatureRefreshS'], message: problem });
  })
  .refine((c) => c.dnssecMasterKey === undefined || (c.masterKey === undefined && c.masterKeyFile === undefined), {
    path: ['dnssecMasterKey'],
    message: 'is the older name of MASTER_KEY: set MASTER_KEY (or MASTER_KEY_FILE) alone',
  });

export type Config = z.infer<typeof ConfigSchema>;

/** The zone signing policy the DNSSEC settings give (the DNS engine's; unset times take their defaults). */
export function signingPolicyOf(
  c: Pick<
    Config,
    | 'dnssecDnskeyTtl'
    | 'dnssecSignatureValidityS'
    | 'dnssecSignatureJitterS'
    | 'dnssecSignatureRefreshS'
    | 'dnssecSignaturePreRefreshS'
  >,
): Partial<SigningPolicy> & Pick<SigningPolicy, 'signatureValidity'> {
  return {
    dnskeyTtl: c.dnssecDnskeyTtl,
    signatureValidity: c.dnssecSignatureValidityS,
    ...(c.dnssecSignatureJitterS === undefined ? {} : { signatureJitter: c.dnssecSignatureJitterS }),
    ...(c.dnssecSignatureRefreshS === undefined ? {} : { signatureRefresh: c.dnssecSignatureRefreshS }),
    ...(c.dnssecSignaturePreRefreshS === undefined ? {} : { signaturePreRefresh: c.dnssecSignaturePreRefreshS }),
  };
}

/** Environment variable of each key, from the keys' metadata (the documented names scripts and users rely on). */
export const ENV_NAMES: Readonly<Partial<Record<keyof Config, string>>> = envNames(shape);
