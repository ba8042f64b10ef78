import { Kind, type ConstDirectiveNode, type ConstValueNode, type DocumentNode } from 'graphql';

/**
 * The names a schema uses for directives of a spec it links (`@link`, the core schema spec): the spec's own names,
 * `<as>__<name>` (`as` defaults to the spec's name, the URL's last but one segment), and what `import:` brings in under
 * its own name or an `as`. By directive, e.g. `cost` → {`cost`, `cost__cost`}.
 */
export function linkedDirectiveNames(
  document: DocumentNode,
  urlPrefix: string,
  directives: readonly string[],
): Map<string, Set<string>> {
  const names = new Map(directives.map((d) => [d, new Set([d])]));
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.SCHEMA_DEFINITION && definition.kind !== Kind.SCHEMA_EXTENSION) continue;
    for (const link of definition.directives ?? []) {
      const url = stringArg(link, 'url');
      if (link.name.value !== 'link' || !url?.startsWith(urlPrefix)) continue;
      const prefix = stringArg(link, 'as') ?? url.split('/').at(-2) ?? '';
      for (const [directive, known] of names) known.add(`${prefix}__${directive}`);
      const imports = argument(link, 'import');
      for (const entry of imports?.kind === Kind.LIST ? imports.values : []) {
        const [name, as] = importOf(entry);
        names.get(name.slice(1))?.add(as.slice(1));
      }
    }
  }
  return names;
}

/** An `import:` entry of `@link`: `"@name"` or `{ name: "@name", as: "@other" }`. */
function importOf(entry: ConstValueNode): [string, string] {
  if (entry.kind === Kind.STRING) return [entry.value, entry.value];
  if (entry.kind !== Kind.OBJECT) return ['', ''];
  const field = (key: string) => {
    const value = entry.fields.find((f) => f.name.value === key)?.value;
    return value?.kind === Kind.STRING ? value.value : undefined;
  };
  const name = field('name') ?? '';
  return [name, field('as') ?? name];
}

export function argument(directive: ConstDirectiveNode, name: string): ConstValueNode | undefined {
  return directive.arguments?.find((a) => a.name.value === name)?.value;
}

export function stringArg(directive: ConstDirectiveNode, name: string): string | undefined {
  const value = argument(directive, name);
  return value?.kind === Kind.STRING ? value.value : undefined;
}
