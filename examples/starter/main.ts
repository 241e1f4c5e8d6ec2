/**
 * A cdktf app with one MCP gateway (`greeter`) exposing one HTTP service as a tool (`greet`).
 *
 *   npm run synth             # writes cdktf.out/ (offline)
 *   npm test                  # synthesizes in memory and checks the gateway config
 *   npm run dev               # serves the gateway locally with its backend, no Docker
 *   cdktf deploy              # the Docker deployment (needs Terraform and Docker): see docs/deploy.md
 *
 * Token hash: GREETER_TOKEN_SHA256 (make a token and its hash with
 * `TOKEN=$(openssl rand -base64 32); printf %s "$TOKEN" | sha256sum`). Base image of the gateway and the backend:
 * BASE_IMAGE (default node:22-bookworm-slim from Docker Hub; any Node 22 image your Docker host has).
 */
import * as path from 'node:path';
import { App, TerraformStack, TerraformVariable } from 'cdktf';
import { Construct } from 'constructs';
import { DockerProvider } from '@cdktf/provider-docker/lib/provider';
import { DEFAULT_BASE_IMAGE, Gateway, Secret, Service } from 'cdktf-mcp-gateway';

/** The hash of the development token `starter-dev-token`: fine on a laptop, never in a shared deployment. */
const DEV_TOKEN_SHA256 = '3f5c5b45b2ea39ba87bc08fc92763903f9466675742353c673d77d2860a08831';

/** The starter's stack: the Docker provider, the backend (built from ./backend), the service and the gateway. */
export class StarterStack extends TerraformStack {
  public readonly gateway: Gateway;

  public constructor(scope: Construct, id: string) {
    super(scope, id);
    new DockerProvider(this, 'docker', {});
    // the backend's API key, never in the config: `TF_VAR_greeter_api_key=… cdktf deploy`;
    // `npm run dev` reads GREETER_API_KEY from the environment
    const apiKey = new TerraformVariable(this, 'greeter_api_key', { type: 'string', sensitive: true });
    // one setting for both images, so a host without Docker Hub builds them on an image it has
    const baseImage = process.env.BASE_IMAGE || DEFAULT_BASE_IMAGE;

    const greet = new Service(this, 'greet', {
      description: 'Greet someone by name.',
      endpoint: {
        url: 'http://greeter:8080/greet/{name}',
        method: 'GET',
        headers: { 'X-Api-Key': Secret.env('GREETER_API_KEY') },
      },
      input: {
        name: { type: 'string', required: true, minLength: 1, maxLength: 64 },
        punctuation: { type: 'string', enum: ['!', '.', '?'] },
      },
      container: {
        build: { context: path.resolve(__dirname, '..', 'backend'), args: { BASE_IMAGE: baseImage } },
        port: 8080,
      },
    });

    this.gateway = new Gateway(this, 'greeter', {
      services: [greet],
      auth: { tokens: [{ id: 'starter-agent', sha256: process.env.GREETER_TOKEN_SHA256 ?? DEV_TOKEN_SHA256 }] },
      secrets: { GREETER_API_KEY: apiKey.stringValue },
      hostIp: '127.0.0.1',
      port: 8080,
      baseImage,
      // false: calls reach the backend unchecked; a deploy changes it in place
      validateInput: true,
    });
  }
}

if (require.main === module) {
  const app = new App();
  new StarterStack(app, 'starter');
  app.synth();
}
