import { phpPrettyJson } from './php-json';

// Expected strings are PHP 8's output for the same values (php -r 'echo json_encode($v, JSON_PRETTY_PRINT);').
test('objects and lists are indented by four spaces, keys in order', () => {
  expect(phpPrettyJson({ result: 'success', session_id: 'abc' })).toBe(
    '{\n    "result": "success",\n    "session_id": "abc"\n}',
  );
  expect(phpPrettyJson([['www.example.test.', '300', 'IN', 'A', '192.0.2.1']])).toBe(
    '[\n    [\n        "www.example.test.",\n        "300",\n        "IN",\n        "A",\n        "192.0.2.1"\n    ]\n]',
  );
  expect(phpPrettyJson({ is_logged: true, user: null, n: 42 })).toBe(
    '{\n    "is_logged": true,\n    "user": null,\n    "n": 42\n}',
  );
});

test('empty list and empty object', () => {
  expect(phpPrettyJson([])).toBe('[]');
  expect(phpPrettyJson({})).toBe('{}');
  expect(phpPrettyJson({ warnings: [] })).toBe('{\n    "warnings": []\n}');
});

test('escapes: slash, quotes, backslash, control characters, non-ASCII as lower-case \\u, surrogate pairs', () => {
  expect(phpPrettyJson('a/b')).toBe('"a\\/b"');
  expect(phpPrettyJson('"q" \\ x')).toBe('"\\"q\\" \\\\ x"');
  expect(phpPrettyJson('line\nnext\ttab\r\u0001')).toBe('"line\\nnext\\ttab\\r\\u0001"');
  expect(phpPrettyJson('café')).toBe('"caf\\u00e9"');
  expect(phpPrettyJson('😀')).toBe('"\\ud83d\\ude00"');
  expect(phpPrettyJson('\u007f')).toBe('"\u007f"'); // DEL is written as it is
  expect(phpPrettyJson('"\\"hello world\\" \\"second string\\""')).toBe(
    '"\\"\\\\\\"hello world\\\\\\" \\\\\\"second string\\\\\\"\\""',
  );
});
