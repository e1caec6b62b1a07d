/** TOSCA → manifest (core/tosca): node templates, functions, and every error as a path-naming message. */
import * as E from 'fp-ts/lib/Either.js';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { translateTemplate, type JsonValue } from '../../../core/internal.js';
import { parseYamlDocument } from '../../../app/tosca/yaml.js';
import { WEB_MANIFEST, WEB_TEMPLATE } from './templates.js';

const translate = (template: JsonValue, inputs?: JsonValue) =>
  translateTemplate({ template, inputs, parseDocument: parseYamlDocument, root: 'spec.tosca' });

const node = (spec: JsonValue, properties: Record<string, JsonValue> = {}): JsonValue => ({
  type: 'tosca.nodes.indigo.KubernetesObject',
  properties: { ...properties, spec },
});
const templateOf = (nodes: Record<string, JsonValue>, inputs: Record<string, JsonValue> = {}): JsonValue => ({
  tosca_definitions_version: 'tosca_simple_yaml_1_0',
  topology_template: { inputs, node_templates: nodes },
});
const configMap = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' }, data: { a: '1' } };

const errorsOf = (result: ReturnType<typeof translate>): ReadonlyArray<string> =>
  E.isLeft(result) ? result.left.map((i) => `${i.path}: ${i.message}`) : [];

describe('translateTemplate', () => {
  it('translates the web example: a mapping spec and a YAML-string spec, with get_input, get_property and concat', () => {
    expect(translate(parse(WEB_TEMPLATE) as JsonValue, { replicas: 3 })).toEqual(E.right(WEB_MANIFEST));
  });

  it('keeps node template order', () => {
    const result = translate(
      templateOf({
        b: node({ ...configMap, metadata: { name: 'b' } }),
        a: node({ ...configMap, metadata: { name: 'a' } }),
      }),
    );
    expect(E.isRight(result) && result.right.map((r) => r.metadata.name)).toEqual(['b', 'a']);
  });

  describe('get_input', () => {
    const template = templateOf(
      { c: node({ ...configMap, data: { size: { get_input: 'size' } } }) },
      { size: { type: 'integer', default: 1 } },
    );
    it('takes the value from spec.toscaInputs', () => {
      expect(translate(template, { size: 5 })).toEqual(E.right([{ ...configMap, data: { size: 5 } }]));
    });
    it('falls back to the declared default', () => {
      expect(translate(template)).toEqual(E.right([{ ...configMap, data: { size: 1 } }]));
    });
    it('accepts the list form [name]', () => {
      const listForm = templateOf(
        { c: node({ ...configMap, data: { size: { get_input: ['size'] } } }) },
        { size: { default: 7 } },
      );
      expect(translate(listForm)).toEqual(E.right([{ ...configMap, data: { size: 7 } }]));
    });
    it('an input without value nor default is an error naming the path', () => {
      const noDefault = templateOf(
        { c: node({ ...configMap, data: { size: { get_input: 'size' } } }) },
        { size: { type: 'integer' } },
      );
      expect(errorsOf(translate(noDefault))).toEqual([
        'spec.tosca.topology_template.node_templates.c.properties.spec.data.size.get_input: get_input: input "size" has no value in spec.toscaInputs and no default',
      ]);
    });
    it('an undeclared input is an error', () => {
      const undeclared = templateOf({ c: node({ ...configMap, data: { size: { get_input: 'nope' } } }) });
      expect(errorsOf(translate(undeclared))[0]).toContain('get_input: no input "nope"');
    });
    it('spec.toscaInputs must be a mapping', () => {
      expect(errorsOf(translate(templateOf({ c: node(configMap) }), ['x']))).toEqual([
        'spec.tosca: spec.toscaInputs must be a mapping of input names to values',
      ]);
    });
  });

  describe('get_property', () => {
    it('reads SELF, another node template, and nested keys and indexes', () => {
      const template = templateOf({
        c: node(
          {
            ...configMap,
            data: { own: { get_property: ['SELF', 'port'] }, other: { get_property: ['d', 'ports', 1, 'n'] } },
          },
          { port: 80 },
        ),
        d: node({ ...configMap, metadata: { name: 'd' } }, { ports: [{ n: 1 }, { n: 2 }] }),
      });
      const result = translate(template);
      expect(E.isRight(result) && result.right[0]?.data).toEqual({ own: 80, other: 2 });
    });
    it('evaluates functions inside the referenced property', () => {
      const template = templateOf(
        {
          c: node(
            { ...configMap, data: { x: { get_property: ['SELF', 'name'] } } },
            { name: { concat: ['a', { get_input: 'n' }] } },
          ),
        },
        { n: { default: 'b' } },
      );
      const result = translate(template);
      expect(E.isRight(result) && result.right[0]?.data).toEqual({ x: 'ab' });
    });
    it('reports unknown nodes, unknown properties, missing nested keys and cycles', () => {
      const template = templateOf({
        a: node({ ...configMap, metadata: { name: 'a' }, data: { x: { get_property: ['nowhere', 'p'] } } }),
        b: node({ ...configMap, metadata: { name: 'b' }, data: { x: { get_property: ['SELF', 'missing'] } } }),
        c: node(
          { ...configMap, metadata: { name: 'c' }, data: { x: { get_property: ['SELF', 'p', 'deep'] } } },
          { p: { shallow: 1 } },
        ),
        d: node(
          { ...configMap, metadata: { name: 'd' }, data: { x: { get_property: ['SELF', 'p'] } } },
          { p: { get_property: ['SELF', 'q'] }, q: { get_property: ['SELF', 'p'] } },
        ),
        e: node({ ...configMap, metadata: { name: 'e' }, data: { x: { get_property: ['HOST', 'p'] } } }),
      });
      const messages = errorsOf(translate(template));
      expect(messages).toHaveLength(5);
      expect(messages[0]).toContain(
        'node_templates.a.properties.spec.data.x.get_property: get_property: no node template "nowhere"',
      );
      expect(messages[1]).toContain('get_property: node template "b" has no property "missing"');
      expect(messages[2]).toContain('get_property: no "deep" in the property\'s value');
      expect(messages[3]).toContain('get_property: circular reference d.p → d.q → d.p');
      expect(messages[4]).toContain('get_property: HOST is not supported');
    });
  });

  describe('concat', () => {
    it('joins strings, numbers and booleans', () => {
      const template = templateOf({ c: node({ ...configMap, data: { x: { concat: ['a-', 1, '-', true] } } }) });
      const result = translate(template);
      expect(E.isRight(result) && result.right[0]?.data).toEqual({ x: 'a-1-true' });
    });
    it('rejects lists and mappings as parts, and a non-list argument', () => {
      const bad = templateOf({
        c: node({ ...configMap, data: { x: { concat: ['a', { k: 1 }] } } }),
        d: node({ ...configMap, metadata: { name: 'd' }, data: { x: { concat: 'a' } } }),
      });
      const messages = errorsOf(translate(bad));
      expect(messages[0]).toContain(
        'node_templates.c.properties.spec.data.x.concat[1]: concat joins strings, numbers or booleans',
      );
      expect(messages[1]).toContain('concat takes a list of values');
    });
  });

  describe('errors', () => {
    it('no topology template', () => {
      expect(errorsOf(translate({ tosca_definitions_version: 'tosca_simple_yaml_1_0' }))).toEqual([
        'spec.tosca.topology_template: no topology template: the template needs a topology_template mapping',
      ]);
    });
    it('no node templates (missing or empty)', () => {
      expect(
        errorsOf(translate({ tosca_definitions_version: 'tosca_simple_yaml_1_0', topology_template: {} }))[0],
      ).toContain('spec.tosca.topology_template.node_templates: no node templates');
      expect(
        errorsOf(
          translate({ tosca_definitions_version: 'tosca_simple_yaml_1_0', topology_template: { node_templates: {} } }),
        )[0],
      ).toContain('no node templates');
    });
    it('a missing tosca_definitions_version is refused (TOSCA requires it), along with every other problem', () => {
      const { tosca_definitions_version: _, ...unversioned } = templateOf({
        vm: { type: 'tosca.nodes.Compute' },
      }) as Record<string, JsonValue>;
      expect(errorsOf(translate(unversioned))).toEqual([
        'spec.tosca.tosca_definitions_version: missing tosca_definitions_version: TOSCA requires it; write one of tosca_simple_yaml_1_0, tosca_simple_yaml_1_1, tosca_simple_yaml_1_2, tosca_simple_yaml_1_3',
        'spec.tosca.topology_template.node_templates.vm.type: unsupported node type "tosca.nodes.Compute": kreconcile translates only tosca.nodes.indigo.KubernetesObject',
      ]);
      expect(errorsOf(translate({ topology_template: {} }))).toHaveLength(2);
    });
    it.each(['tosca_simple_yaml_1_4', 'tosca_simple_profile_for_nfv_1_0', 1.3])(
      'an unsupported version %s is refused',
      (version) => {
        expect(
          errorsOf(
            translate({ ...(templateOf({}) as Record<string, JsonValue>), tosca_definitions_version: version }),
          )[0],
        ).toContain(
          `spec.tosca.tosca_definitions_version: unsupported tosca_definitions_version ${JSON.stringify(version)}: write one of tosca_simple_yaml_1_0`,
        );
      },
    );
    it.each(['tosca_simple_yaml_1_0', 'tosca_simple_yaml_1_1', 'tosca_simple_yaml_1_2', 'tosca_simple_yaml_1_3'])(
      'the Simple Profile version %s is translated',
      (version) => {
        const template = {
          ...(templateOf({ c: node(configMap) }) as Record<string, JsonValue>),
          tosca_definitions_version: version,
        };
        expect(translate(template)).toEqual(E.right([configMap]));
      },
    );
    it('TOSCA 2.0 is refused with the reason (another grammar), not misread', () => {
      expect(
        errorsOf(
          translate({ ...(templateOf({}) as Record<string, JsonValue>), tosca_definitions_version: 'tosca_2_0' }),
        )[0],
      ).toContain('TOSCA 2.0 templates (service_template, $-functions) are not supported');
    });
    it('a template that is not a mapping', () => {
      expect(errorsOf(translate('just text'))[0]).toContain('spec.tosca: a TOSCA template must be a mapping');
    });
    it('unsupported node type', () => {
      expect(errorsOf(translate(templateOf({ vm: { type: 'tosca.nodes.Compute' } })))).toEqual([
        'spec.tosca.topology_template.node_templates.vm.type: unsupported node type "tosca.nodes.Compute": kreconcile translates only tosca.nodes.indigo.KubernetesObject',
      ]);
    });
    it.each([
      ['missing', undefined],
      ['null', null],
      ['blank text', '  \n'],
      ['an empty mapping', {}],
    ])('empty spec (%s)', (_, spec) => {
      const template = templateOf({
        c: spec === undefined ? { type: 'tosca.nodes.indigo.KubernetesObject', properties: {} } : node(spec),
      });
      expect(errorsOf(translate(template))[0]).toMatch(
        /^spec\.tosca\.topology_template\.node_templates\.c\.properties\.spec: empty spec/,
      );
    });
    it('a spec that evaluates to empty text', () => {
      const template = templateOf({ c: node({ get_input: 'text' }) }, { text: { default: '' } });
      expect(errorsOf(translate(template))[0]).toContain('empty spec: the property spec evaluates to empty text');
    });
    it('unsupported function', () => {
      const template = templateOf({ c: node({ ...configMap, data: { ip: { get_attribute: ['SELF', 'ip'] } } }) });
      expect(errorsOf(translate(template))).toEqual([
        'spec.tosca.topology_template.node_templates.c.properties.spec.data.ip.get_attribute: unsupported function get_attribute: kreconcile evaluates get_input, get_property, concat',
      ]);
    });
    it('a YAML-string spec that does not parse, or holds several documents', () => {
      const messages = errorsOf(translate(templateOf({ c: node('a: b: c'), d: node('kind: A\n---\nkind: B\n') })));
      expect(messages[0]).toBe(
        'spec.tosca.topology_template.node_templates.c.properties.spec: spec is not valid YAML: line 1, column 4: Nested mappings are not allowed in compact mappings',
      );
      expect(messages[1]).toContain('Source contains multiple documents');
    });
    it('a spec that is not one Kubernetes resource', () => {
      const messages = errorsOf(
        translate(templateOf({ c: node({ kind: 'ConfigMap', metadata: {} }), d: node('- a\n- b\n') })),
      );
      expect(messages[0]).toContain('spec is not a Kubernetes resource: missing apiVersion, metadata.name');
      expect(messages[1]).toContain('spec must hold one Kubernetes resource (a mapping), not a list or a scalar');
    });
    it('reports every broken node template at once', () => {
      const messages = errorsOf(translate(templateOf({ a: { type: 'x' }, b: node(null), c: node(configMap) })));
      expect(messages).toHaveLength(2);
    });
    it('functions inside a YAML-string spec are data, not evaluated (a resource may hold a one-key "token" field)', () => {
      const result = translate(
        templateOf({
          c: node('apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\ndata:\n  token: { token: x }\n'),
        }),
      );
      expect(E.isRight(result) && result.right[0]?.data).toEqual({ token: { token: 'x' } });
    });
  });
});

describe('parseYamlDocument', () => {
  it('parses YAML and JSON; never quotes the source in errors', () => {
    expect(parseYamlDocument('{"a": [1, 2]}')).toEqual(E.right({ a: [1, 2] }));
    const secretish = 'password: hunter2: oops';
    const error = parseYamlDocument(secretish);
    expect(E.isLeft(error) && error.left).not.toContain('hunter2');
  });
  it('bounds alias expansion', () => {
    const laughs = [
      'a: &a [x, x, x, x, x, x, x, x, x]',
      ...Array.from(
        { length: 8 },
        (_, i) =>
          `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9)
            .fill(`*${String.fromCharCode(97 + i)}`)
            .join(', ')}]`,
      ),
    ].join('\n');
    expect(E.isLeft(parseYamlDocument(laughs))).toBe(true);
  });
});
