import { createHash } from 'node:crypto';
import { type ITerraformDependable, Lazy, Token } from 'cdktf';
import { Construct } from 'constructs';
import {
  configDigest,
  GATEWAY_CONTAINER_PORT,
  K8S_NEXT_DIR,
  K8S_OUTCOME_ANNOTATION as OUTCOME,
  K8S_SECRETS_SUBDIR,
  k8sLabels,
  k8sName,
  k8sNames,
} from '../../src/config';
import type { GatewayKubernetesOptions } from './kubernetes-props';
import { containerSecurity, podSecurity } from './gateway-pods';
import { KubernetesDataSource, KubernetesResource } from './kubernetes-object';

/**
 * The hand-over of each new config: the apply job (with its account and role) and the data source that reads the
 * outcome it records, whose postcondition fails the deploy with the gateway's reason. The Deployment waits for it,
 * so the first pods start with a checked config.
 */
export function createApplyConfig(
  scope: Construct,
  options: GatewayKubernetesOptions,
  namespace: KubernetesResource,
  after: readonly ITerraformDependable[],
): KubernetesDataSource {
  const { name } = options;
  const ns = options.target.namespace;
  const meta = (objectName: string) => ({ name: objectName, namespace: ns, labels: k8sLabels(name, 'gateway') });
  const applier = createApplierAccess(scope, name, ns, meta, namespace);
  const job = createApplyJob(scope, options, [...after, ...applier]);
  return new KubernetesDataSource(
    scope,
    'ApplyOutcome',
    'kubernetes_resource',
    { api_version: 'batch/v1', kind: 'Job', metadata: { name: job.jobName, namespace: ns } },
    {
      dependsOn: [job.resource],
      lifecycle: {
        postcondition: [
          {
            condition: `\${!startswith(try(self.object.metadata.annotations["${OUTCOME}"], "refused"), "refused")}`,
            errorMessage:
              `Gateway '${name}' did not take the new config: ` +
              `\${try(self.object.metadata.annotations["${OUTCOME}"], "the apply-config job recorded no outcome; see kubectl -n ${ns} logs job/\${self.object.metadata.name}")}`,
          },
        ],
      },
    },
  );
}

/** The apply job's service account and the least it may do: its gateway's live copy, its pods, its jobs. */
function createApplierAccess(
  scope: Construct,
  gateway: string,
  ns: string,
  meta: (n: string) => Record<string, unknown>,
  namespace: KubernetesResource,
): KubernetesResource[] {
  const names = k8sNames(gateway);
  const inNs = { dependsOn: [namespace] };
  const account = new KubernetesResource(
    scope,
    'ApplierAccount',
    'kubernetes_service_account_v1',
    { metadata: meta(names.applier), automount_service_account_token: true },
    inNs,
  );
  const role = new KubernetesResource(
    scope,
    'ApplierRole',
    'kubernetes_role_v1',
    {
      metadata: meta(names.applier),
      rule: [
        {
          api_groups: [''],
          resources: ['configmaps', 'secrets'],
          resource_names: [names.live],
          verbs: ['get', 'patch'],
        },
        { api_groups: [''], resources: ['pods'], verbs: ['list', 'patch'] },
        { api_groups: ['batch'], resources: ['jobs'], verbs: ['get', 'patch'] },
      ],
    },
    inNs,
  );
  const binding = new KubernetesResource(
    scope,
    'ApplierBinding',
    'kubernetes_role_binding_v1',
    {
      metadata: meta(names.applier),
      role_ref: { api_group: 'rbac.authorization.k8s.io', kind: 'Role', name: names.applier },
      subject: [{ kind: 'ServiceAccount', name: names.applier, namespace: ns }],
    },
    { dependsOn: [account, role] },
  );
  return [account, role, binding];
}

/**
 * The one-shot job of a config change, named after what it hands over (the config, the image and the secrets'
 * revision), so any change of those replaces it and runs it again.
 */
function createApplyJob(
  scope: Construct,
  options: GatewayKubernetesOptions,
  after: readonly ITerraformDependable[],
): { resource: KubernetesResource; jobName: string } {
  const { name, target } = options;
  const hash = Lazy.stringValue({
    produce: () =>
      createHash('sha256')
        .update(JSON.stringify({ image: options.image.name, config: options.configText() }))
        .digest('hex')
        .slice(0, 10),
  });
  const prefix = `${k8sName(name).slice(0, 30)}-apply`;
  const jobName = options.revision === undefined ? `${prefix}-${hash}` : `${prefix}-${hash}-${options.revision.tag}`;
  const labels = k8sLabels(name, 'apply-config');
  const resource = new KubernetesResource(
    scope,
    'ApplyConfig',
    'kubernetes_job_v1',
    {
      metadata: { name: jobName, namespace: target.namespace, labels },
      spec: {
        ...JOB_READ_BACK.job,
        backoff_limit: 0,
        active_deadline_seconds: target.applyTimeoutSeconds + 120,
        template: {
          metadata: { labels, annotations: {} },
          spec: applyPodSpec(options, jobName),
        },
      },
      wait_for_completion: true,
      timeouts: { create: `${target.applyTimeoutSeconds + 120}s`, update: `${target.applyTimeoutSeconds + 120}s` },
    },
    {
      dependsOn: [...after, ...(options.dependsOn ?? [])],
    },
  );
  return { resource, jobName };
}

/** The apply job's pod: the gateway image running `apply-config --kubernetes` on the config Terraform wrote. */
function applyPodSpec(options: GatewayKubernetesOptions, jobName: string): Record<string, unknown> {
  const { name, target } = options;
  const names = k8sNames(name);
  // the job waits until its mount holds this config, unless it holds a value known only at deploy
  const expect = (): string[] => {
    const text = options.configText();
    return Token.isUnresolved(text) ? [] : ['--expect-digest', configDigest(text)];
  };
  return {
    ...JOB_READ_BACK.pod,
    service_account_name: names.applier,
    restart_policy: 'Never',
    enable_service_links: false,
    security_context: { ...podSecurity(), supplemental_groups: [] },
    container: [
      {
        ...JOB_READ_BACK.container,
        name: 'apply-config',
        image: options.image.reference,
        image_pull_policy: options.image.pull ? 'IfNotPresent' : 'Never',
        args: Lazy.listValue({
          produce: () => [
            'apply-config',
            '--kubernetes',
            `${target.namespace}/${name}`,
            '--job',
            jobName,
            '--next-dir',
            K8S_NEXT_DIR,
            '--port',
            String(GATEWAY_CONTAINER_PORT),
            '--timeout-ms',
            String(target.applyTimeoutSeconds * 1000),
            ...expect(),
          ],
        }),
        resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
        security_context: { ...containerSecurity(), capabilities: { add: [], drop: ['ALL'] } },
        volume_mount: [
          { name: 'next', mount_path: K8S_NEXT_DIR, read_only: true },
          { name: 'tmp', mount_path: '/tmp' },
        ],
      },
    ],
    volume: [
      {
        name: 'next',
        projected: {
          default_mode: '0440',
          sources: [
            { config_map: { name: names.config, optional: false } },
            {
              secret: {
                name: names.secrets,
                optional: false,
                items: options.secrets.map(([n]) => ({ key: n, path: `${K8S_SECRETS_SUBDIR}/${n}` })),
              },
            },
          ],
        },
      },
      { name: 'tmp', empty_dir: { size_limit: '16Mi' } },
    ],
  };
}

/**
 * What the provider reads back for an apply job, written out so that a replacement's plan lists what changes and
 * not each of these as "x -> null". (The provider leaves the indexed-mode fields out of a NonIndexed job.)
 */
const JOB_READ_BACK = {
  job: { completion_mode: 'NonIndexed', manual_selector: false, backoff_limit_per_index: 0, max_failed_indexes: 0 },
  pod: {
    node_selector: {},
    scheduler_name: 'default-scheduler',
    image_pull_secrets: [],
    readiness_gate: [],
  },
  container: { command: [], termination_message_policy: 'File' },
} as const;
