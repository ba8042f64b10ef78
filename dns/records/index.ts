/** Record values per type (parse, validate, normalise, convert to and from dns-packet answers) and zone-name rules.
 * Only re-exports. */
export * from './record-values';
export { checkZoneName, soaNames, ZoneNameError } from './zone-names';
