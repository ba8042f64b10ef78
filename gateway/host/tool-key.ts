import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedSecret, type KeyVault } from '../../dns/dnssec';
import type { ZoneStore } from '../../dns/store';
import { parseKeyFile, type TsigKey } from '../../dns/tsig';
import { writePrivateFile } from '../../platform/files';
import type { Logger } from '../../platform/log';

/** The name of the key the DNS tool signs its changes to the embedded server with. */
export const TOOL_KEY_NAME = 'dns-tool';
/** Its name among the store's sealed secrets: one key for every replica of the store. */
export const TOOL_KEY_SECRET = 'dns-tool-tsig';

/** The tool's key out of key-file text; `where` names it in the error. */
function toolKeyOf(text: string, where: string): TsigKey {
  const key = parseKeyFile(text).find((k) => k.name === TOOL_KEY_NAME);
  if (!key) throw new Error(`${where}: no key "${TOOL_KEY_NAME}" in it (delete the file to generate a new one)`);
  return key;
}

const newKeyFile = (): string =>
  `key "${TOOL_KEY_NAME}" {\n\talgorithm hmac-sha256;\n\tsecret "${randomBytes(32).toString('base64')}";\n};\n`;

/**
 * The DNS tool's key for the embedded server (HMAC-SHA256, 256 random bits), shared by every replica of `store`:
 * sealed there as BIND key-file text under the master key — the store's when it holds one, else this data
 * directory's (an older start's) or a new one, kept unless another replica was first. DATA_DIR/dns-tool.key is
 * written with it (mode 0600), so `nsupdate -k` can use it; replaced when it held another key.
 */
export async function sharedToolKey(
  dataDir: string,
  shared: { store: ZoneStore; vault: KeyVault },
  log: Logger,
): Promise<TsigKey> {
  const file = join(dataDir, `${TOOL_KEY_NAME}.key`);
  const local = existsSync(file) ? readFileSync(file, 'utf8') : undefined;
  if (local !== undefined) toolKeyOf(local, file);
  const held = await sharedSecret(shared.store, shared.vault, TOOL_KEY_SECRET, () =>
    Buffer.from(local ?? newKeyFile(), 'utf8'),
  );
  const text = held.value.toString('utf8');
  const key = toolKeyOf(text, `the store's ${TOOL_KEY_SECRET}`);
  if (text !== local) {
    writePrivateFile(file, text);
    if (local !== undefined)
      log.warn({ file }, 'DNS tool key file held another key: replaced by the one replicas share');
    else if (held.created) log.info({ file }, 'first start: TSIG key for the DNS tool generated');
  }
  return key;
}
