import { planCreate, planDelete, planReplace, presentationValue } from './changes';
import { editableType, ptrWanted, ttlOf } from '../protocol';

const ZONES = ['example.test', '2.0.192.in-addr.arpa', '8.b.d.0.1.0.0.2.ip6.arpa'];
const find = (fqdn: string) => {
  const z = ZONES.filter((zone) => fqdn === zone || fqdn.endsWith(`.${zone}`));
  return z.sort((a, b) => b.length - a.length)[0] ?? null;
};

describe('parameters', () => {
  test.each(['0', '60', '2147483647', ' 300 '])('TTL %p is accepted', (t) => expect(ttlOf(t)).toBe(Number(t)));
  test.each(['', '-5', '60.5', '1e3', '2147483648', 'abc', '0x10'])('TTL %p is "Invalid ttl"', (t) =>
    expect(() => ttlOf(t)).toThrow(expect.objectContaining({ error: 'Invalid ttl', message: 'TTL must be a number' })),
  );
  test.each(['A', 'AAAA', 'CNAME', 'DNAME', 'DS', 'NS', 'PTR', 'SRV', 'SSHFP', 'TXT', 'SPF', 'MX'])(
    '%s is editable',
    (t) => expect(editableType(t)).toBe(t),
  );
  test.each(['a', 'SOA', 'CAA', 'TYPE65280', 'ANY', ''])('type %p is "Invalid type" naming it', (t) =>
    expect(() => editableType(t)).toThrow(
      expect.objectContaining({ error: 'Invalid type', message: `Type ${t} is not a valid DNS record type` }),
    ),
  );
  test.each([
    ['true', true],
    ['t', true],
    ['T', true],
    ['1', true],
    ['-2', true],
    ['0.5', true],
    ['0', false],
    ['false', false],
    ['yes', false],
    ['', false],
    [undefined, false],
  ])('ptr=%p means %p', (v, expected) => expect(ptrWanted(v)).toBe(expected));
});

describe('change plans', () => {
  test('TXT without quotes becomes quoted strings of at most 255 characters; quotes and backslashes escaped', () => {
    expect(presentationValue('TXT', 'hello world')).toBe('"hello world"');
    expect(presentationValue('TXT', '"already" "quoted"')).toBe('"already" "quoted"');
    expect(presentationValue('TXT', 'say "hi" \\o/')).toBe('"say \\"hi\\" \\\\o/"');
    const long = presentationValue('TXT', 'x'.repeat(600));
    expect(long).toBe(`"${'x'.repeat(255)}" "${'x'.repeat(255)}" "${'x'.repeat(90)}"`);
    expect(presentationValue('A', '192.0.2.1')).toBe('192.0.2.1');
  });

  test('create with ptr adds the PTR in the reverse zone as a second UPDATE (A and AAAA)', () => {
    const a = planCreate(
      { zone: 'example.test', fqdn: 'www.example.test', type: 'A', ttl: 60, value: '192.0.2.10', ptr: true },
      find,
    );
    expect(a.main).toEqual({
      zone: 'example.test',
      operations: [{ op: 'add', name: 'www.example.test', type: 'A', ttl: 60, value: '192.0.2.10' }],
    });
    expect(a.ptr).toEqual([
      {
        zone: '2.0.192.in-addr.arpa',
        operations: [{ op: 'add', name: '10.2.0.192.in-addr.arpa', type: 'PTR', ttl: 60, value: 'www.example.test.' }],
      },
    ]);
    expect(a.warnings).toEqual([]);
    const aaaa = planCreate(
      { zone: 'example.test', fqdn: 'v6.example.test', type: 'AAAA', ttl: 60, value: '2001:db8::5', ptr: true },
      find,
    );
    expect(aaaa.ptr[0]?.zone).toBe('8.b.d.0.1.0.0.2.ip6.arpa');
  });

  test('PTR problems are warnings, with the original messages', () => {
    const noZone = planCreate(
      { zone: 'example.test', fqdn: 'w.example.test', type: 'A', ttl: 60, value: '198.51.100.1', ptr: true },
      find,
    );
    expect(noZone.ptr).toEqual([]);
    expect(noZone.warnings).toEqual(['PTR record was not created: there is no PTR zone for record 198.51.100.1']);
    const mx = planCreate(
      { zone: 'example.test', fqdn: 'example.test', type: 'MX', ttl: 60, value: '10 mail.example.test.', ptr: true },
      find,
    );
    expect(mx.warnings).toEqual([
      'Requested PTR record was not created: PTR record can be only created when you are inserting A record, you created MX record instead',
    ]);
    const del = planDelete({ zone: 'example.test', fqdn: 'w.example.test', type: 'CNAME', ptr: true }, find);
    expect(del.warnings).toEqual([
      'Requested PTR record was not deleted: PTR record can be only deleted when you are changing A record, you deleted CNAME record instead',
    ]);
    const notQuad = planDelete(
      { zone: 'example.test', fqdn: 'w.example.test', type: 'A', value: 'not-an-ip', ptr: true },
      find,
    );
    expect(notQuad.warnings).toEqual(['PTR record was not deleted: record not-an-ip is not a valid IPv4 quad']);
    const neither = planReplace(
      {
        zone: 'example.test',
        fqdn: 'w.example.test',
        type: 'TXT',
        newFqdn: 'w.example.test',
        newType: 'TXT',
        ttl: 60,
        newValue: 'x',
        ptr: true,
      },
      find,
    );
    expect(neither.warnings).toEqual([
      'You requested to modify underlying PTR record, but neither new or old record type is A record, ignoring PTR update request',
    ]);
  });

  test('delete: with a value that record, without it the whole set', () => {
    expect(
      planDelete({ zone: 'example.test', fqdn: 'w.example.test', type: 'A', value: '192.0.2.1', ptr: false }, find).main
        .operations,
    ).toEqual([{ op: 'deleteRecord', name: 'w.example.test', type: 'A', value: '192.0.2.1' }]);
    expect(
      planDelete({ zone: 'example.test', fqdn: 'w.example.test', type: 'A', ptr: false }, find).main.operations,
    ).toEqual([{ op: 'deleteRRset', name: 'w.example.test', type: 'A' }]);
  });

  test('replace is one UPDATE (delete old, add new); with ptr: old PTR deleted only with a value, new PTR added', () => {
    const plan = planReplace(
      {
        zone: 'example.test',
        fqdn: 'w.example.test',
        type: 'A',
        newFqdn: 'w2.example.test',
        newType: 'A',
        ttl: 120,
        newValue: '192.0.2.20',
        ptr: true,
      },
      find,
    );
    expect(plan.main.operations).toEqual([
      { op: 'deleteRRset', name: 'w.example.test', type: 'A' },
      { op: 'add', name: 'w2.example.test', type: 'A', ttl: 120, value: '192.0.2.20' },
    ]);
    expect(plan.warnings).toEqual([
      "Old PTR record was not deleted, because parameter value was not provided - so we don't know what to delete",
    ]);
    expect(plan.ptr.map((p) => p.operations[0]?.op)).toEqual(['add']);
    const withOld = planReplace(
      {
        zone: 'example.test',
        fqdn: 'w.example.test',
        type: 'A',
        value: '192.0.2.10',
        newFqdn: 'w.example.test',
        newType: 'A',
        ttl: 120,
        newValue: '192.0.2.20',
        ptr: true,
      },
      find,
    );
    expect(withOld.ptr).toEqual([
      {
        zone: '2.0.192.in-addr.arpa',
        operations: [{ op: 'deleteRecord', name: '10.2.0.192.in-addr.arpa', type: 'PTR', value: 'w.example.test.' }],
      },
      {
        zone: '2.0.192.in-addr.arpa',
        operations: [{ op: 'add', name: '20.2.0.192.in-addr.arpa', type: 'PTR', ttl: 120, value: 'w.example.test.' }],
      },
    ]);
    expect(withOld.warnings).toEqual([]);
  });
});
