/** DNSSEC: algorithms, keys sealed at rest, zone and answer signing, the signing schedule. Only re-exports. */
export { type Algorithm, algorithmByName, algorithmByNumber, ALGORITHMS, DEFAULT_ALGORITHM } from './algorithms';
export { DnssecAnswerSigner } from './answer-signer';
export { type RrsigFields } from './canonical';
export { KeyVault, MASTER_KEY_FILE } from './key-vault';
export { MasterKeyError, parseMasterKey, readMasterKeyFile } from './master-key';
export { dnskeyRdata, dsDigest, keyTag, KSK_FLAGS, ZSK_FLAGS } from './keys';
export { SigningScheduler } from './scheduler';
export { MASTER_KEY_CHECK, MasterKeyMismatchError, sharedSecret, verifyMasterKey } from './shared-secrets';
export { type KeyMaterial, newKeyMaterialAsync } from './zone-keys';
export { nextKeyEvent, reshapes, signPatch, signZoneInSteps, unsignedPatch } from './zone-signer';
export { refreshSignatures, type Refreshed } from './zone-refresh';
export { signingTimes, signingTimesProblem, type SigningTimes } from './signing-times';
export { seconds, storedKey, storeSigning, type ZoneSigning } from './zone-signing';
export { nsec3ParamView, type Nsec3ParamView } from './nsec3';
