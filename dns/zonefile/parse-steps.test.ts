/**
 * Parsing in steps (imports through the API): the same records and the same errors as parsing at once, with the
 * event loop running between the steps.
 */
import { parseZoneFile, parseZoneFileInSteps } from './parse';

function file(records: number, bad?: number): string {
  let text = '$ORIGIN steps.test.\n$TTL 300\n@ SOA ns1 hostmaster 1 3600 600 86400 60\n@ NS ns1\nns1 A 192.0.2.1\n';
  for (let i = 0; i < records; i++)
    text += i === bad ? `h${i} A 300.1.2.3\n` : `h${i} A 10.0.${(i >> 8) & 255}.${i & 255}\n`;
  return text;
}

it('reads what parseZoneFile reads, letting other work run between its steps', async () => {
  const text = file(20_000);
  let turns = 0;
  const ticking = setInterval(() => turns++, 0);
  try {
    const stepped = await parseZoneFileInSteps(text, { origin: 'steps.test' });
    expect(stepped).toEqual(parseZoneFile(text, { origin: 'steps.test' }));
    expect(stepped.records).toHaveLength(20_002);
  } finally {
    clearInterval(ticking);
  }
  expect(turns).toBeGreaterThan(0);
});

it('refuses a bad record far into the file as parseZoneFile does, naming its line', async () => {
  const text = file(5000, 4000);
  const once = (() => {
    try {
      parseZoneFile(text, { origin: 'steps.test' });
    } catch (err) {
      return err;
    }
  })();
  await expect(parseZoneFileInSteps(text, { origin: 'steps.test' })).rejects.toEqual(once);
  expect(String(once)).toMatch(/line 4006/);
});
