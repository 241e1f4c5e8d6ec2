import { createHash } from 'node:crypto';
import { DataResource, type ITerraformDependable, Lazy, TerraformStack, Token } from 'cdktf';
import { Construct } from 'constructs';
import {
  configDigest,
  GATEWAY_CONTAINER_PORT,
  HANDOFF_IMAGE_ENV,
  K8S_HANDOFF_KEY,
  K8S_NAMESPACE_UID_ENV,
  K8S_NEXT_DIR,
  K8S_SECRETS_SUBDIR,
  type KubernetesHandoff,
  k8sLabels,
  k8sName,
  k8sNames,
} from '../../src/config';
import { cliLocalExec, quietLocalExec } from '../cli-local-exec';
import type { GatewayKubernetesOptions } from './kubernetes-props';
import { CONTAINER_SECURITY, POD_SECURITY } from './gateway-pods';
import { KubernetesCluster } from './kubernetes-cluster';
import { KubernetesResource } from './kubernetes-object';

/** The label Kubernetes gives a job's pods: the apply job reads its own name from it. */
const JOB_NAME_LABEL = 'batch.kubernetes.io/job-name';

/**
 * The hand-over of each new config: a `terraform_data`, replaced whenever the config, the image or a secret's value
 * changes, whose `local-exec` runs `apply-config --kubectl` on the deploying machine. That creates the apply job
 * (with its account and role, made here) through kubectl, waits for the outcome it records, and fails the deploy
 * with the gateway's reason when it was refused. The Deployment waits for it, so the first pods start with a
 * checked config. A plan shows only the job's new name: the job itself lies under the resource's `//` comment.
 */
export function createApplyConfig(
  scope: Construct,
  options: GatewayKubernetesOptions,
  namespace: KubernetesResource,
  after: readonly ITerraformDependable[],
): DataResource {
  const { name, target } = options;
  const ns = target.namespace;
  const meta = (objectName: string) => ({ name: objectName, namespace: ns, labels: k8sLabels(name, 'gateway') });
  const applier = createApplierAccess(scope, name, ns, meta, namespace);
  // named after what it hands over (the config, the image and the secrets' revision), so any change runs it again
  const hash = Lazy.stringValue({
    produce: () =>
      createHash('sha256')
        .update(JSON.stringify({ image: options.image.name, config: options.configText() }))
        .digest('hex')
        .slice(0, 10),
  });
  const prefix = `${k8sName(name).slice(0, 30)}-apply`;
  const jobName = options.revision === undefined ? `${prefix}-${hash}` : `${prefix}-${hash}-${options.revision.tag}`;
  const run = new DataResource(scope, 'ApplyConfig', {
    triggersReplace: { job: jobName },
    dependsOn: [...after, ...applier, ...(options.dependsOn ?? [])],
    provisioners: [
      cliLocalExec(['apply-config', '--kubectl', `${ns}/${name}`, '--job'], jobName, () => ({
        [HANDOFF_IMAGE_ENV]: options.image.reference,
        // the deploy checks that kubectl reaches the cluster Terraform deployed this namespace to
        [K8S_NAMESPACE_UID_ENV]: namespace.getStringAttribute('metadata.0.uid'),
      })),
    ],
  });
  quietLocalExec(run);
  run.addOverride(
    `//.${K8S_HANDOFF_KEY}`,
    Lazy.anyValue({
      produce: (): KubernetesHandoff => {
        const cluster = TerraformStack.of(scope)
          .node.findAll()
          .find((c): c is KubernetesCluster => c instanceof KubernetesCluster);
        return {
          gateway: name,
          namespace: ns,
          ...(cluster?.configPath === undefined ? {} : { kubeconfig: cluster.configPath }),
          ...(cluster?.configContext === undefined ? {} : { context: cluster.configContext }),
          labels: k8sLabels(name, 'apply-config'),
          timeout_seconds: target.applyTimeoutSeconds + 120,
          job: applyJob(options),
        };
      },
    }),
  );
  return run;
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
 * The apply job as the Kubernetes API takes it, but for its name and its container's image (the deploy fills those
 * in): the gateway image running `apply-config --kubernetes` on the config Terraform wrote.
 */
function applyJob(options: GatewayKubernetesOptions): Record<string, unknown> {
  const { name, target } = options;
  const names = k8sNames(name);
  const labels = k8sLabels(name, 'apply-config');
  // the job waits until its mount holds this config, unless it holds a value known only at deploy
  const text = options.configText();
  const expect = Token.isUnresolved(text) ? [] : ['--expect-digest', configDigest(text)];
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { namespace: target.namespace, labels },
    spec: {
      backoffLimit: 0,
      activeDeadlineSeconds: target.applyTimeoutSeconds + 120,
      template: {
        metadata: { labels },
        spec: {
          serviceAccountName: names.applier,
          restartPolicy: 'Never',
          enableServiceLinks: false,
          securityContext: POD_SECURITY,
          containers: [
            {
              name: 'apply-config',
              imagePullPolicy: options.image.pull ? 'IfNotPresent' : 'Never',
              env: [
                { name: 'JOB_NAME', valueFrom: { fieldRef: { fieldPath: `metadata.labels['${JOB_NAME_LABEL}']` } } },
              ],
              args: [
                'apply-config',
                '--kubernetes',
                `${target.namespace}/${name}`,
                '--job',
                '$(JOB_NAME)',
                '--next-dir',
                K8S_NEXT_DIR,
                '--port',
                String(GATEWAY_CONTAINER_PORT),
                '--timeout-ms',
                String(target.applyTimeoutSeconds * 1000),
                ...expect,
              ],
              resources: { requests: { cpu: '50m', memory: '96Mi' }, limits: { memory: '256Mi' } },
              securityContext: CONTAINER_SECURITY,
              volumeMounts: [
                { name: 'next', mountPath: K8S_NEXT_DIR, readOnly: true },
                { name: 'tmp', mountPath: '/tmp' },
              ],
            },
          ],
          volumes: [
            {
              name: 'next',
              projected: {
                defaultMode: 0o440,
                sources: [
                  { configMap: { name: names.config, optional: false } },
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
            { name: 'tmp', emptyDir: { sizeLimit: '16Mi' } },
          ],
        },
      },
    },
  };
}
