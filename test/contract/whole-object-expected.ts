/**
 * Whole objects as kube-apiserver 1.36.3 stores them for the manifests of
 * `whole-object-manifests.ts`, normalised by `whole-object-normalize.ts`. Captured from a real
 * server by `capture-whole-objects.ts` (run it again to follow a new Kubernetes version).
 */
import type { JsonValue } from '../../core/json/json.js';

export const expectedObjects: Readonly<Record<string, JsonValue>> = {
  deployment: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      generation: 1,
      name: 'deployment',
      namespace: '<namespace>',
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas: 1,
      revisionHistoryLimit: 10,
      selector: {
        matchLabels: {
          app: 'deployment',
        },
      },
      strategy: {
        rollingUpdate: {
          maxSurge: '25%',
          maxUnavailable: '25%',
        },
        type: 'RollingUpdate',
      },
      template: {
        metadata: {
          labels: {
            app: 'deployment',
          },
        },
        spec: {
          containers: [
            {
              env: [
                {
                  name: 'POD',
                  valueFrom: {
                    fieldRef: {
                      apiVersion: 'v1',
                      fieldPath: 'metadata.name',
                    },
                  },
                },
              ],
              image: 'app:1',
              imagePullPolicy: 'IfNotPresent',
              name: 'c',
              ports: [
                {
                  containerPort: 80,
                  protocol: 'TCP',
                },
              ],
              readinessProbe: {
                failureThreshold: 3,
                httpGet: {
                  path: '/',
                  port: 80,
                  scheme: 'HTTP',
                },
                periodSeconds: 10,
                successThreshold: 1,
                timeoutSeconds: 1,
              },
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                {
                  mountPath: '/config',
                  name: 'config',
                },
              ],
            },
            {
              image: 'proxy',
              imagePullPolicy: 'Always',
              name: 'sidecar',
              resources: {
                limits: {
                  cpu: '100m',
                },
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          volumes: [
            {
              configMap: {
                defaultMode: 420,
                name: 'config',
              },
              name: 'config',
            },
            {
              hostPath: {
                path: '/var/log',
                type: '',
              },
              name: 'host',
            },
          ],
        },
      },
    },
    status: {},
  },
  deploymentRecreate: {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: {
      generation: 1,
      name: 'recreate',
      namespace: '<namespace>',
    },
    spec: {
      progressDeadlineSeconds: 600,
      replicas: 0,
      revisionHistoryLimit: 10,
      selector: {
        matchLabels: {
          app: 'recreate',
        },
      },
      strategy: {
        type: 'Recreate',
      },
      template: {
        metadata: {
          labels: {
            app: 'recreate',
          },
        },
        spec: {
          containers: [
            {
              env: [
                {
                  name: 'POD',
                  valueFrom: {
                    fieldRef: {
                      apiVersion: 'v1',
                      fieldPath: 'metadata.name',
                    },
                  },
                },
              ],
              image: 'app:1',
              imagePullPolicy: 'IfNotPresent',
              name: 'c',
              ports: [
                {
                  containerPort: 80,
                  protocol: 'TCP',
                },
              ],
              readinessProbe: {
                failureThreshold: 3,
                httpGet: {
                  path: '/',
                  port: 80,
                  scheme: 'HTTP',
                },
                periodSeconds: 10,
                successThreshold: 1,
                timeoutSeconds: 1,
              },
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                {
                  mountPath: '/config',
                  name: 'config',
                },
              ],
            },
            {
              image: 'proxy',
              imagePullPolicy: 'Always',
              name: 'sidecar',
              resources: {
                limits: {
                  cpu: '100m',
                },
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          volumes: [
            {
              configMap: {
                defaultMode: 420,
                name: 'config',
              },
              name: 'config',
            },
            {
              hostPath: {
                path: '/var/log',
                type: '',
              },
              name: 'host',
            },
          ],
        },
      },
    },
    status: {},
  },
  statefulSet: {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: {
      generation: 1,
      name: 'stateful',
      namespace: '<namespace>',
    },
    spec: {
      persistentVolumeClaimRetentionPolicy: {
        whenDeleted: 'Retain',
        whenScaled: 'Retain',
      },
      podManagementPolicy: 'OrderedReady',
      replicas: 1,
      revisionHistoryLimit: 10,
      selector: {
        matchLabels: {
          app: 'stateful',
        },
      },
      serviceName: 'stateful',
      template: {
        metadata: {
          labels: {
            app: 'stateful',
          },
        },
        spec: {
          containers: [
            {
              env: [
                {
                  name: 'POD',
                  valueFrom: {
                    fieldRef: {
                      apiVersion: 'v1',
                      fieldPath: 'metadata.name',
                    },
                  },
                },
              ],
              image: 'app:1',
              imagePullPolicy: 'IfNotPresent',
              name: 'c',
              ports: [
                {
                  containerPort: 80,
                  protocol: 'TCP',
                },
              ],
              readinessProbe: {
                failureThreshold: 3,
                httpGet: {
                  path: '/',
                  port: 80,
                  scheme: 'HTTP',
                },
                periodSeconds: 10,
                successThreshold: 1,
                timeoutSeconds: 1,
              },
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                {
                  mountPath: '/config',
                  name: 'config',
                },
              ],
            },
            {
              image: 'proxy',
              imagePullPolicy: 'Always',
              name: 'sidecar',
              resources: {
                limits: {
                  cpu: '100m',
                },
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          volumes: [
            {
              configMap: {
                defaultMode: 420,
                name: 'config',
              },
              name: 'config',
            },
            {
              hostPath: {
                path: '/var/log',
                type: '',
              },
              name: 'host',
            },
          ],
        },
      },
      updateStrategy: {
        rollingUpdate: {
          partition: 0,
        },
        type: 'RollingUpdate',
      },
      volumeClaimTemplates: [
        {
          apiVersion: 'v1',
          kind: 'PersistentVolumeClaim',
          metadata: {
            name: 'data',
          },
          spec: {
            accessModes: ['ReadWriteOnce'],
            resources: {
              requests: {
                storage: '1Gi',
              },
            },
            volumeMode: 'Filesystem',
          },
          status: {
            phase: 'Pending',
          },
        },
      ],
    },
    status: {
      availableReplicas: 0,
      replicas: 0,
    },
  },
  daemonSet: {
    apiVersion: 'apps/v1',
    kind: 'DaemonSet',
    metadata: {
      annotations: {
        'deprecated.daemonset.template.generation': '1',
      },
      generation: 1,
      name: 'daemon',
      namespace: '<namespace>',
    },
    spec: {
      revisionHistoryLimit: 10,
      selector: {
        matchLabels: {
          app: 'daemon',
        },
      },
      template: {
        metadata: {
          labels: {
            app: 'daemon',
          },
        },
        spec: {
          containers: [
            {
              env: [
                {
                  name: 'POD',
                  valueFrom: {
                    fieldRef: {
                      apiVersion: 'v1',
                      fieldPath: 'metadata.name',
                    },
                  },
                },
              ],
              image: 'app:1',
              imagePullPolicy: 'IfNotPresent',
              name: 'c',
              ports: [
                {
                  containerPort: 80,
                  protocol: 'TCP',
                },
              ],
              readinessProbe: {
                failureThreshold: 3,
                httpGet: {
                  path: '/',
                  port: 80,
                  scheme: 'HTTP',
                },
                periodSeconds: 10,
                successThreshold: 1,
                timeoutSeconds: 1,
              },
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                {
                  mountPath: '/config',
                  name: 'config',
                },
              ],
            },
            {
              image: 'proxy',
              imagePullPolicy: 'Always',
              name: 'sidecar',
              resources: {
                limits: {
                  cpu: '100m',
                },
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          volumes: [
            {
              configMap: {
                defaultMode: 420,
                name: 'config',
              },
              name: 'config',
            },
            {
              hostPath: {
                path: '/var/log',
                type: '',
              },
              name: 'host',
            },
          ],
        },
      },
      updateStrategy: {
        rollingUpdate: {
          maxSurge: 0,
          maxUnavailable: 1,
        },
        type: 'RollingUpdate',
      },
    },
    status: {
      currentNumberScheduled: 0,
      desiredNumberScheduled: 0,
      numberMisscheduled: 0,
      numberReady: 0,
    },
  },
  replicaSet: {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: {
      generation: 1,
      name: 'replicas',
      namespace: '<namespace>',
    },
    spec: {
      replicas: 1,
      selector: {
        matchLabels: {
          app: 'replicas',
        },
      },
      template: {
        metadata: {
          labels: {
            app: 'replicas',
          },
        },
        spec: {
          containers: [
            {
              env: [
                {
                  name: 'POD',
                  valueFrom: {
                    fieldRef: {
                      apiVersion: 'v1',
                      fieldPath: 'metadata.name',
                    },
                  },
                },
              ],
              image: 'app:1',
              imagePullPolicy: 'IfNotPresent',
              name: 'c',
              ports: [
                {
                  containerPort: 80,
                  protocol: 'TCP',
                },
              ],
              readinessProbe: {
                failureThreshold: 3,
                httpGet: {
                  path: '/',
                  port: 80,
                  scheme: 'HTTP',
                },
                periodSeconds: 10,
                successThreshold: 1,
                timeoutSeconds: 1,
              },
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
              volumeMounts: [
                {
                  mountPath: '/config',
                  name: 'config',
                },
              ],
            },
            {
              image: 'proxy',
              imagePullPolicy: 'Always',
              name: 'sidecar',
              resources: {
                limits: {
                  cpu: '100m',
                },
              },
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Always',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
          volumes: [
            {
              configMap: {
                defaultMode: 420,
                name: 'config',
              },
              name: 'config',
            },
            {
              hostPath: {
                path: '/var/log',
                type: '',
              },
              name: 'host',
            },
          ],
        },
      },
    },
    status: {
      replicas: 0,
    },
  },
  job: {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      generation: 1,
      labels: {
        'batch.kubernetes.io/controller-uid': '<uid>',
        'batch.kubernetes.io/job-name': 'job',
        'controller-uid': '<uid>',
        'job-name': 'job',
      },
      name: 'job',
      namespace: '<namespace>',
    },
    spec: {
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      completions: 1,
      manualSelector: false,
      parallelism: 1,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: {
        matchLabels: {
          'batch.kubernetes.io/controller-uid': '<uid>',
        },
      },
      suspend: false,
      template: {
        metadata: {
          labels: {
            'batch.kubernetes.io/controller-uid': '<uid>',
            'batch.kubernetes.io/job-name': 'job',
            'controller-uid': '<uid>',
            'job-name': 'job',
          },
        },
        spec: {
          containers: [
            {
              image: 'app',
              imagePullPolicy: 'Always',
              name: 'c',
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'Never',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: {},
  },
  workQueueJob: {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: {
      generation: 1,
      labels: {
        team: 'a',
      },
      name: 'queue',
      namespace: '<namespace>',
    },
    spec: {
      backoffLimit: 6,
      completionMode: 'NonIndexed',
      manualSelector: false,
      parallelism: 3,
      podReplacementPolicy: 'TerminatingOrFailed',
      selector: {
        matchLabels: {
          'batch.kubernetes.io/controller-uid': '<uid>',
        },
      },
      suspend: false,
      template: {
        metadata: {
          labels: {
            'batch.kubernetes.io/controller-uid': '<uid>',
            'batch.kubernetes.io/job-name': 'queue',
            'controller-uid': '<uid>',
            'job-name': 'queue',
          },
        },
        spec: {
          containers: [
            {
              image: 'app:2',
              imagePullPolicy: 'IfNotPresent',
              name: 'c',
              resources: {},
              terminationMessagePath: '/dev/termination-log',
              terminationMessagePolicy: 'File',
            },
          ],
          dnsPolicy: 'ClusterFirst',
          restartPolicy: 'OnFailure',
          schedulerName: 'default-scheduler',
          securityContext: {},
          terminationGracePeriodSeconds: 30,
        },
      },
    },
    status: {},
  },
  cronJob: {
    apiVersion: 'batch/v1',
    kind: 'CronJob',
    metadata: {
      generation: 1,
      name: 'cron',
      namespace: '<namespace>',
    },
    spec: {
      concurrencyPolicy: 'Allow',
      failedJobsHistoryLimit: 1,
      jobTemplate: {
        metadata: {},
        spec: {
          template: {
            metadata: {},
            spec: {
              containers: [
                {
                  image: 'app',
                  imagePullPolicy: 'Always',
                  name: 'c',
                  resources: {},
                  terminationMessagePath: '/dev/termination-log',
                  terminationMessagePolicy: 'File',
                },
              ],
              dnsPolicy: 'ClusterFirst',
              restartPolicy: 'OnFailure',
              schedulerName: 'default-scheduler',
              securityContext: {},
              terminationGracePeriodSeconds: 30,
            },
          },
        },
      },
      schedule: '*/5 * * * *',
      successfulJobsHistoryLimit: 3,
      suspend: false,
    },
    status: {},
  },
  service: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'web',
      namespace: '<namespace>',
    },
    spec: {
      clusterIP: '<allocated>',
      clusterIPs: ['<allocated>'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [
        {
          name: 'http',
          port: 80,
          protocol: 'TCP',
          targetPort: 80,
        },
        {
          name: 'dns',
          port: 53,
          protocol: 'UDP',
          targetPort: 5353,
        },
      ],
      selector: {
        app: 'deployment',
      },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: {
      loadBalancer: {},
    },
  },
  nodePortService: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'nodeport',
      namespace: '<namespace>',
    },
    spec: {
      clusterIP: '<allocated>',
      clusterIPs: ['<allocated>'],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [
        {
          nodePort: '<allocated>',
          port: 80,
          protocol: 'TCP',
          targetPort: 80,
        },
      ],
      selector: {
        app: 'x',
      },
      sessionAffinity: 'None',
      type: 'NodePort',
    },
    status: {
      loadBalancer: {},
    },
  },
  loadBalancerService: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'balanced',
      namespace: '<namespace>',
    },
    spec: {
      allocateLoadBalancerNodePorts: true,
      clusterIP: '<allocated>',
      clusterIPs: ['<allocated>'],
      externalTrafficPolicy: 'Cluster',
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      ports: [
        {
          nodePort: '<allocated>',
          port: 443,
          protocol: 'TCP',
          targetPort: 'https',
        },
      ],
      selector: {
        app: 'x',
      },
      sessionAffinity: 'None',
      type: 'LoadBalancer',
    },
    status: {
      loadBalancer: {},
    },
  },
  externalNameService: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'external',
      namespace: '<namespace>',
    },
    spec: {
      externalName: 'db.example.com',
      sessionAffinity: 'None',
      type: 'ExternalName',
    },
    status: {
      loadBalancer: {},
    },
  },
  headlessService: {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: {
      name: 'headless',
      namespace: '<namespace>',
    },
    spec: {
      clusterIP: 'None',
      clusterIPs: ['None'],
      internalTrafficPolicy: 'Cluster',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      selector: {
        app: 'x',
      },
      sessionAffinity: 'None',
      type: 'ClusterIP',
    },
    status: {
      loadBalancer: {},
    },
  },
  configMap: {
    apiVersion: 'v1',
    data: {
      key: 'value',
    },
    kind: 'ConfigMap',
    metadata: {
      name: 'config',
      namespace: '<namespace>',
    },
  },
  secret: {
    apiVersion: 'v1',
    data: {
      password: 'aHVudGVyMg==',
    },
    kind: 'Secret',
    metadata: {
      name: 'secret',
      namespace: '<namespace>',
    },
    type: 'Opaque',
  },
  serviceAccount: {
    apiVersion: 'v1',
    kind: 'ServiceAccount',
    metadata: {
      name: 'robot',
      namespace: '<namespace>',
    },
  },
  persistentVolumeClaim: {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      finalizers: ['kubernetes.io/pvc-protection'],
      name: 'claim',
      namespace: '<namespace>',
    },
    spec: {
      accessModes: ['ReadWriteOnce'],
      resources: {
        requests: {
          storage: '1Gi',
        },
      },
      volumeMode: 'Filesystem',
    },
    status: {
      phase: 'Pending',
    },
  },
  role: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: {
      name: 'reader',
      namespace: '<namespace>',
    },
    rules: [
      {
        apiGroups: [''],
        resources: ['pods'],
        verbs: ['get', 'list'],
      },
    ],
  },
  roleBinding: {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'RoleBinding',
    metadata: {
      name: 'reader',
      namespace: '<namespace>',
    },
    roleRef: {
      apiGroup: 'rbac.authorization.k8s.io',
      kind: 'Role',
      name: 'reader',
    },
    subjects: [
      {
        kind: 'ServiceAccount',
        name: 'robot',
      },
      {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'User',
        name: 'jane',
      },
      {
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'Group',
        name: 'devs',
      },
    ],
  },
  ingress: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'Ingress',
    metadata: {
      generation: 1,
      name: 'web',
      namespace: '<namespace>',
    },
    spec: {
      rules: [
        {
          host: 'shop.example.com',
          http: {
            paths: [
              {
                backend: {
                  service: {
                    name: 'web',
                    port: {
                      number: 80,
                    },
                  },
                },
                path: '/',
                pathType: 'Prefix',
              },
            ],
          },
        },
      ],
    },
    status: {
      loadBalancer: {},
    },
  },
  networkPolicy: {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: {
      generation: 1,
      name: 'deny',
      namespace: '<namespace>',
    },
    spec: {
      egress: [{}],
      podSelector: {},
      policyTypes: ['Ingress', 'Egress'],
    },
  },
  podDisruptionBudget: {
    apiVersion: 'policy/v1',
    kind: 'PodDisruptionBudget',
    metadata: {
      generation: 1,
      name: 'budget',
      namespace: '<namespace>',
    },
    spec: {
      minAvailable: 1,
      selector: {
        matchLabels: {
          app: 'deployment',
        },
      },
    },
    status: {
      currentHealthy: 0,
      desiredHealthy: 0,
      disruptionsAllowed: 0,
      expectedPods: 0,
    },
  },
  horizontalPodAutoscaler: {
    apiVersion: 'autoscaling/v2',
    kind: 'HorizontalPodAutoscaler',
    metadata: {
      name: 'scale',
      namespace: '<namespace>',
    },
    spec: {
      maxReplicas: 3,
      metrics: [
        {
          resource: {
            name: 'cpu',
            target: {
              averageUtilization: 80,
              type: 'Utilization',
            },
          },
          type: 'Resource',
        },
      ],
      minReplicas: 1,
      scaleTargetRef: {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        name: 'deployment',
      },
    },
    status: {
      currentMetrics: null,
      desiredReplicas: 0,
    },
  },
  limitRange: {
    apiVersion: 'v1',
    kind: 'LimitRange',
    metadata: {
      name: 'limits',
      namespace: '<namespace>',
    },
    spec: {
      limits: [
        {
          default: {
            cpu: '1',
            memory: '1Gi',
          },
          defaultRequest: {
            cpu: '1',
            memory: '1Gi',
          },
          max: {
            memory: '1Gi',
          },
          min: {
            cpu: '10m',
          },
          type: 'Container',
        },
      ],
    },
  },
  resourceQuota: {
    apiVersion: 'v1',
    kind: 'ResourceQuota',
    metadata: {
      name: 'quota',
      namespace: '<namespace>',
    },
    spec: {
      hard: {
        pods: '10',
      },
    },
    status: {},
  },
  lease: {
    apiVersion: 'coordination.k8s.io/v1',
    kind: 'Lease',
    metadata: {
      name: 'leader',
      namespace: '<namespace>',
    },
    spec: {
      holderIdentity: 'me',
      leaseDurationSeconds: 15,
    },
  },
  endpointSlice: {
    addressType: 'IPv4',
    apiVersion: 'discovery.k8s.io/v1',
    endpoints: [
      {
        addresses: ['10.1.1.1'],
        conditions: {},
      },
    ],
    kind: 'EndpointSlice',
    metadata: {
      generation: 1,
      name: 'slice',
      namespace: '<namespace>',
    },
    ports: [
      {
        name: '',
        port: 80,
        protocol: 'TCP',
      },
    ],
  },
  endpoints: {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: {
      name: 'manual',
      namespace: '<namespace>',
    },
    subsets: [
      {
        addresses: [
          {
            ip: '10.1.1.1',
          },
        ],
        ports: [
          {
            port: 80,
            protocol: 'TCP',
          },
        ],
      },
    ],
  },
  podTemplate: {
    apiVersion: 'v1',
    kind: 'PodTemplate',
    metadata: {
      generation: 1,
      name: 'template',
      namespace: '<namespace>',
    },
    template: {
      metadata: {},
      spec: {
        containers: [
          {
            image: 'app',
            imagePullPolicy: 'Always',
            name: 'c',
            resources: {},
            terminationMessagePath: '/dev/termination-log',
            terminationMessagePolicy: 'File',
          },
        ],
        dnsPolicy: 'ClusterFirst',
        restartPolicy: 'Always',
        schedulerName: 'default-scheduler',
        securityContext: {},
        terminationGracePeriodSeconds: 30,
      },
    },
  },
};
