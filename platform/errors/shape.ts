/** What an error may say beyond its status and message; each shape shows what its interface has room for. */
export interface ErrorExtras {
  /** A machine-readable code (GraphQL's extensions.code). */
  code?: string;
  /** The configuration key of a limit that refused the request. */
  limit?: string;
  /** Each invalid field and what is wrong with it. */
  errors?: ReadonlyArray<{ field: string; message: string }>;
}

/** Renders an error body in one interface's own shape. */
export type ErrorShape = (status: number, message: string, extras?: ErrorExtras) => unknown;
