import { createHash } from 'node:crypto';
import { getOperationAST, parse } from 'graphql';
import { declaredVariables } from './response-cache';

/** A fixed operation (as the REST adapters run them), hashed once. */
export interface PreparedOperation {
  name: string;
  query: string;
  hash: string;
  /** The variables the operation declares (the response cache keys on them). */
  variables: readonly string[];
}

export function prepareOperation(name: string, query: string): PreparedOperation {
  const operation = getOperationAST(parse(query), name);
  if (!operation) throw new Error(`fixed operation ${name} is not in its own document`);
  return {
    name,
    query,
    hash: createHash('sha256').update(query).digest('hex'),
    variables: declaredVariables(operation),
  };
}
