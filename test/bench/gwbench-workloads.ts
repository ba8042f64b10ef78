import type { GraphQLSchema } from 'graphql';
import { BIG_PRODUCTS, buildBigResponseSubgraphs, loadBigResponseWorkload } from './gwbench-big-response';
import { buildHeavyPlanSubgraphs, loadHeavyPlanWorkload } from './gwbench-heavy-plan';
import { buildGwbenchSubgraphs } from './gwbench-schema';
import { loadGwbenchWorkload } from './gwbench-workload';

/**
 * The workloads of `npm run bench -- gwbench` (BENCH_GWBENCH_WORKLOADS picks some): The Guild's benchmark as published
 * (gwbench-workload.ts), and two of the kind Grafbase's 2025 benchmark added, written here: a plan-heavy query
 * (gwbench-heavy-plan.ts) and a response of about 5 MB (gwbench-big-response.ts). Each is a supergraph, one request
 * body and the expected response derived from generated data without any gateway; its subgraphs are served by
 * gwbench-subgraphs.ts (GWBENCH_WORKLOAD names which).
 */
export const WORKLOAD_NAMES = ['gwbench', 'heavy-plan', 'big-response'] as const;
export type WorkloadName = (typeof WORKLOAD_NAMES)[number];

export interface BenchWorkload {
  name: WorkloadName;
  /** One line: what it is. */
  description: string;
  /** The supergraph, subgraph URLs under SUPERGRAPH_URL_PREFIX. */
  supergraph: string;
  /** The subgraphs' names (their URL paths on the subgraph server). */
  subgraphNames: string[];
  query: string;
  body: string;
  expected: unknown;
  /**
   * Our gateway's limits raised for this workload only, since the references have none and the supergraphs state no
   * list sizes: the same work must be measured.
   */
  oursLimits: Record<string, string>;
  /**
   * At most this many connections and at least this many seconds a round, whatever the mode: an answer of several MB
   * takes every gateway a good part of a second, so 50 connections in a short round would complete nothing.
   */
  load?: { maxConnections: number; minSeconds: number };
}

export function isWorkloadName(name: string): name is WorkloadName {
  return (WORKLOAD_NAMES as readonly string[]).includes(name);
}

/** The items of a comma-separated selection (all when unset); an unknown item is an error naming `key`. */
export function selection<T extends string>(key: string, value: string | undefined, all: readonly T[]): T[] {
  if (value === undefined || value.trim() === '') return [...all];
  const picked = value
    .split(',')
    .map((v) => v.trim())
    .filter((v) => v !== '');
  const unknown = picked.filter((v) => !(all as readonly string[]).includes(v));
  if (unknown.length > 0 || picked.length === 0)
    throw new Error(`${key}: unknown ${unknown.join(', ') || '(empty)'}; one or more of ${all.join(',')}`);
  return all.filter((v) => picked.includes(v));
}

/** The executable subgraph schemas of a workload, by name, over its freshly generated data. */
export function workloadSubgraphs(name: WorkloadName): Map<string, GraphQLSchema> {
  if (name === 'heavy-plan') return buildHeavyPlanSubgraphs();
  if (name === 'big-response') return buildBigResponseSubgraphs();
  return buildGwbenchSubgraphs();
}

/** What differs between the workloads: how each is loaded, what it is, and how our gateway and the load are set. */
const SPECS: Record<
  WorkloadName,
  Pick<BenchWorkload, 'oursLimits' | 'load'> & {
    loaded: () => { supergraph: string; query: string; body: string; expected: unknown };
    describe: (subgraphs: number) => string;
  }
> = {
  gwbench: {
    loaded: loadGwbenchWorkload,
    describe: () => "The Guild's federation gateway benchmark, as published",
    // its query's estimated cost is about 108 000, over our default bound of 100 000
    oursLimits: { MAX_QUERY_COST: '1000000' },
  },
  'heavy-plan': {
    loaded: () => loadHeavyPlanWorkload(),
    describe: (n) =>
      `plan-heavy query: ${n} subgraphs, an interface and two unions across them, @requires, @provides, 19 fragments`,
    oursLimits: { MAX_QUERY_COST: '1000000' },
  },
  'big-response': {
    loaded: () => loadBigResponseWorkload(),
    describe: (n) => `big response: ${n} subgraphs, a list of ${BIG_PRODUCTS} entities each completed by three others`,
    oursLimits: { MAX_QUERY_COST: '1000000000' },
    load: { maxConnections: 4, minSeconds: 6 },
  },
};

/** A workload with its expected response (derived afresh, no gateway). */
export function loadWorkload(name: WorkloadName): BenchWorkload {
  const names = [...workloadSubgraphs(name).keys()];
  const { loaded, describe, oursLimits, load } = SPECS[name];
  const w = loaded();
  return {
    name,
    description: describe(names.length),
    supergraph: w.supergraph,
    subgraphNames: names,
    query: w.query,
    body: w.body,
    expected: w.expected,
    oursLimits,
    ...(load ? { load } : {}),
  };
}
