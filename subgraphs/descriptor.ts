import type { GraphQLSchema } from 'graphql';
import type { z } from 'zod';
import type { ZoneStore } from '../dns/store';
import type { DnsEngine } from '../dns/engine';
import type { TsigKey } from '../dns/tsig';
import type { KeyVault } from '../dns/dnssec';
import type { Subgraph } from './subgraph';

/** A subgraph as composition sees it. */
export interface SubgraphDefinition {
  name: string;
  schema: GraphQLSchema;
  /** Where the subgraph listens when it runs alone (written into the supergraph's join__Graph). */
  url: string;
}

/** Engines started before any subgraph; a subgraph gets those it declares in `needs`. */
export interface Engines {
  /** The zone store and the DNS engine answering from it (absent when not started). */
  dns?: {
    store: ZoneStore;
    engine: DnsEngine;
    /** The key the DNS tool signs its updates and transfers to the embedded server with (the server knows it). */
    toolKey?: TsigKey;
    /** Seals and opens the private DNSSEC keys kept in the zone store. */
    vault: KeyVault;
  };
}

/**
 * Settings of the whole product a subgraph may read besides its own section; the host passes them (the names are the
 * configuration's keys, docs/configuration.md).
 */
export interface SharedSettings {
  /** Where SQLite files and generated secrets live. */
  readonly dataDir: string;
  /** PostgreSQL for the stores; unset: SQLite in dataDir. */
  readonly databaseUrl?: string | undefined;
  /** Redis shared by replicas; unset: each process keeps its own in memory. */
  readonly redisUrl?: string | undefined;
  readonly redisPrefix: string;
  readonly redisConnectTimeoutMs: number;
  readonly redisCommandTimeoutMs: number;
  /** The address the embedded DNS server listens on (DNS_HOST). */
  readonly dnsHost: string;
  /** TSIG keys (BIND key-file format) the embedded DNS server knows. */
  readonly tsigKeyFile?: string | undefined;
  /** The DNS API's tokens and login throttle: the DNS tool trusts those tokens and applies the same throttle. */
  readonly dnsApiIssuer: string;
  readonly dnsApiAudience: string;
  readonly dnsApiLoginFailuresPerUser: number;
  readonly dnsApiLoginFailuresPerAddress: number;
  readonly dnsApiLoginWindowS: number;
}

/** What building a subgraph may use. */
export interface SubgraphDeps<Section = unknown> {
  /** Its own section of the configuration, as its config.ts declares and validates it. */
  config: Section;
  shared: SharedSettings;
  /** A logger for this subgraph (already labelled with its name). */
  log: SubgraphLogger;
  engines: Engines;
  /** Parts a test or an embedding program supplies instead of building them (each descriptor reads its own keys). */
  overrides: Readonly<Record<string, unknown>>;
  /**
   * The gateway's graph, for what other subgraphs publish (the DNS API's public keys), never their internals: set in
   * the all-in-one process, absent when a subgraph runs alone. Usable once the gateway has started.
   */
  graph?: GraphAccess;
}

/**
 * Runs one internal read-only operation through the gateway's graph: without any caller's credentials, or with the
 * `authorization` given (e.g. to ask the DNS API who a token's user is now). Errors throw a GraphAccessError.
 */
export interface GraphAccess {
  query(
    name: string,
    source: string,
    variables?: Record<string, unknown>,
    authorization?: string,
  ): Promise<Record<string, unknown>>;
}

/** An internal operation's first error, with its `extensions.code` (UNAUTHENTICATED, …). */
export class GraphAccessError extends Error {
  constructor(
    message: string,
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'GraphAccessError';
  }
}

export interface SubgraphLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
  child(bindings: Record<string, unknown>): SubgraphLogger;
}

/**
 * One subgraph of the product: its name, where it listens when run alone, its schema (for composition, without
 * building anything), the engines it needs, and how to build it. Adding a subgraph is a folder with one of these,
 * listed in subgraphs/index.ts — nothing in the gateway changes.
 */
export interface SubgraphDescriptor<Section = unknown> {
  readonly name: string;
  /** Its keys of the configuration (its config.ts): the host's schema composes every subgraph's section. */
  readonly configSchema: z.ZodObject;
  /** Its GraphQL URL when run alone (`npm run subgraph -- NAME`), written into the supergraph. */
  readonly defaultUrl: string;
  /** Engines it cannot work without; the system starts them first. */
  readonly needs: ReadonlyArray<keyof Engines>;
  buildSchema(): Promise<GraphQLSchema>;
  create(deps: SubgraphDeps<Section>): Promise<Subgraph>;
}
