import { withService } from './subgraph-errors';

describe('withService: a subgraph error as the gateway passes it on', () => {
  it('a variable the subgraph could not coerce (an enum value it lacks) is the caller’s input: BAD_USER_INPUT', () => {
    const message =
      'Variable "$in" got invalid value "NSEC5" at "in.denial"; Value "NSEC5" does not exist in "DnssecDenial" enum.';
    expect(withService({ message }, 'dns-api')).toEqual({
      message,
      extensions: { code: 'BAD_USER_INPUT', serviceName: 'dns-api' },
    });
  });

  it('another error without a code is DOWNSTREAM_SERVICE_ERROR; a code the subgraph gave stays', () => {
    expect(withService({ message: 'boom' }, 'market').extensions).toEqual({
      code: 'DOWNSTREAM_SERVICE_ERROR',
      serviceName: 'market',
    });
    const coded = { message: 'Variable "$x" got invalid value 1', extensions: { code: 'CONFLICT' } };
    expect(withService(coded, 'market').extensions?.code).toBe('CONFLICT');
  });
});
