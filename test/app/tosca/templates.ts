/**
 * TOSCA fixtures: a web application as a template (YAML-string and mapping specs, inputs, functions) and as a manifest.
 */
import { strToU8, zipSync } from 'fflate';

/** The TOSCA template of the web example: a ConfigMap (mapping spec) and a Deployment (YAML-string spec). */
export const WEB_TEMPLATE = `tosca_definitions_version: tosca_simple_yaml_1_0
imports:
  - indigo_custom_types: https://raw.githubusercontent.com/indigo-dc/tosca-types/master/custom_types.yaml
description: A web front end
topology_template:
  inputs:
    replicas:
      type: integer
      default: 2
    image:
      type: string
      default: nginx:1.27
  node_templates:
    config:
      type: tosca.nodes.indigo.KubernetesObject
      properties:
        greeting: hello
        spec:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: web-config
          data:
            GREETING: { concat: [ { get_property: [ SELF, greeting ] }, ", ", { get_input: image } ] }
    web:
      type: tosca.nodes.indigo.KubernetesObject
      properties:
        spec:
          concat:
            - |-
              apiVersion: apps/v1
              kind: Deployment
              metadata:
                name: web
              spec:
                replicas:${' '}
            - { get_input: replicas }
            - "\\n  selector: {matchLabels: {app: web}}\\n  template:\\n    metadata: {labels: {app: web}}\\n    spec:\\n      containers:\\n        - {name: web, image: nginx:1.27}\\n"
`;

/** The manifest the template translates to with `replicas: 3`. */
export const WEB_MANIFEST = [
  { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'web-config' }, data: { GREETING: 'hello, nginx:1.27' } },
  {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx:1.27' }] } },
    },
  },
];

export const TOSCA_META = `TOSCA-Meta-File-Version: 1.0
CSAR-Version: 1.1
Created-By: kreconcile tests
Entry-Definitions: Definitions/web.yaml
`;

/** A CSAR (zip) holding the given files, deflated. */
export const csarOf = (files: Readonly<Record<string, string>>): Uint8Array =>
  zipSync(Object.fromEntries(Object.entries(files).map(([path, text]) => [path, strToU8(text)])));

export const WEB_CSAR = (): Uint8Array =>
  csarOf({ 'TOSCA-Metadata/TOSCA.meta': TOSCA_META, 'Definitions/web.yaml': WEB_TEMPLATE });
