import * as assert from 'node:assert/strict';
import { Gateway, Service } from '../../constructs';
import { generateInputSchema, InferArgs, InputSpec } from '../../src/schema';
import { compileToolSchema } from '../../src/validation';
import { hashOf, newStack, resourcesOf, synth, thrown, warningsOf } from './synth';

const endpoint = { url: 'http://crm:8080/customers/{customer_id}', method: 'GET' } as const;
const input = { customer_id: { type: 'string', required: true } } as const satisfies InputSpec;

// Compile-time assertions, checked by `npm run typecheck`: Equal is true only for identical types.
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
function expectType<T extends true>(): T | undefined {
  return undefined;
}

describe('Service', () => {
  describe('tool config', () => {
    it('takes the tool name from the construct id and defaults the timeout to 10000 ms', () => {
      const service = new Service(newStack(), 'get_customer', { description: 'Look up a customer', endpoint, input });
      assert.deepEqual(service.toolConfig(), {
        name: 'get_customer',
        description: 'Look up a customer',
        input_schema: generateInputSchema(input),
        backend: { url: endpoint.url, method: 'GET', timeout_ms: 10000 },
      });
    });

    it('uses the name prop over the construct id, and timeoutMs', () => {
      const service = new Service(newStack(), 'Lookup', { name: 'crm.lookup', endpoint, input, timeoutMs: 2500 });
      assert.equal(service.toolConfig().name, 'crm.lookup');
      assert.equal(service.toolConfig().backend.timeout_ms, 2500);
    });

    it('lists aliases and forwardAs renames, which the advertised schema leaves out', () => {
      const service = new Service(newStack(), 'create_task', {
        endpoint: { url: 'http://api:8080/tasks', method: 'POST' },
        input: { prompt: { type: 'string', required: true, aliases: ['description'], forwardAs: 'description' } },
      });
      const tool = service.toolConfig();
      assert.deepEqual(tool.aliases, { description: 'prompt' });
      assert.deepEqual(tool.forward_as, { prompt: 'description' });
      assert.equal(JSON.stringify(tool.input_schema).includes('aliases'), false);
    });

    it('is parameterless without input: the generated schema admits no field', () => {
      const service = new Service(newStack(), 'health', { endpoint: { url: 'http://api:8080/health', method: 'GET' } });
      assert.deepEqual(service.toolConfig().input_schema, generateInputSchema(undefined));
      assert.equal(service.toolConfig().description, '');
    });

    it('keeps a raw inputSchema exactly as written', () => {
      const inputSchema = {
        type: 'object',
        properties: { q: { type: ['string', 'null'] } },
        additionalProperties: false,
      };
      const service = new Service(newStack(), 'search', {
        endpoint: { url: 'http://api:8080/search', method: 'GET' },
        inputSchema,
      });
      assert.deepEqual(service.toolConfig().input_schema, inputSchema);
    });
  });

  describe('errors thrown at construction', () => {
    it('refuses an invalid tool name taken from the construct id', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'get customer', { endpoint, input })).message,
        "Invalid service name 'get customer' (the construct id): a tool name is 1-64 letters, digits, '_', '.' or '-' " +
          "(^[A-Za-z0-9_.-]{1,64}$); set 'name' to a valid tool name",
      );
    });

    it('refuses a name longer than 64 characters', () => {
      const name = 'a'.repeat(65);
      assert.match(
        thrown(() => new Service(newStack(), 'x', { name, endpoint, input })).message,
        /^Invalid service name 'a{65}': /,
      );
    });

    it('refuses input and inputSchema together', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint, input, inputSchema: { type: 'object' } })).message,
        "Service 'x': set either 'input' (declared parameters) or 'inputSchema' (a raw JSON Schema), not both",
      );
    });

    it('wraps an invalid declared input with the service name', () => {
      const bad = { a: { type: 'strin' } } as unknown as InputSpec;
      const reason = thrown(() => generateInputSchema(bad)).message;
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method: 'GET' }, input: bad }))
          .message,
        `Service 'x': invalid 'input': ${reason}`,
      );
    });

    it('refuses an alias that clashes with another parameter', () => {
      const clash: InputSpec = { a: { type: 'string', aliases: ['b'] }, b: { type: 'string' } };
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method: 'GET' }, input: clash }))
          .message,
        `Service 'x': invalid 'input': ${thrown(() => generateInputSchema(clash)).message}`,
      );
    });

    it('refuses an alias equal to another parameter, naming both', () => {
      const clash: InputSpec = { a: { type: 'string', aliases: ['b'] }, b: { type: 'string' } };
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method: 'GET' }, input: clash }))
          .message,
        "Service 'x': invalid 'input': Invalid input spec at `a`: alias \"b\" clashes with the parameter `b`; choose another alias",
      );
    });

    it('refuses an alias equal to an alias of another parameter', () => {
      const clash: InputSpec = { a: { type: 'string', aliases: ['text'] }, b: { type: 'string', aliases: ['text'] } };
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method: 'GET' }, input: clash }))
          .message,
        "Service 'x': invalid 'input': Invalid input spec at `b`: alias \"text\" clashes with an alias of `a`; choose another alias",
      );
    });

    it('refuses a misspelled parameter attribute, at compile time and at construction', () => {
      const message = thrown(
        () =>
          new Service(newStack(), 'x', {
            endpoint: { url: 'http://a:1/', method: 'GET' },
            // @ts-expect-error `requird` is not a parameter attribute: the props stay exact, so tsc says so
            input: { id: { type: 'string', requird: true } },
          }),
      ).message;
      assert.match(
        message,
        /^Service 'x': invalid 'input': Invalid input spec at `id`: unknown attribute "requird"; use one of /,
      );
    });

    it('refuses a raw inputSchema that does not compile and says how to fix it', () => {
      const inputSchema = { type: 'object', properties: { a: { type: 'nope' } } };
      const compiled = compileToolSchema(inputSchema);
      assert.equal(compiled.ok, false);
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method: 'GET' }, inputSchema }))
          .message,
        `Service 'x': inputSchema does not compile: ${(compiled as { error: string }).error}. ` +
          "Fix the JSON Schema (draft 2020-12) or declare 'input' instead",
      );
    });

    it('refuses a raw inputSchema that does not describe an object', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint, inputSchema: { type: 'string' } })).message,
        "Service 'x': inputSchema must be a JSON Schema with type: 'object' (MCP tool arguments are always a JSON object)",
      );
    });

    it('refuses an endpoint URL that is not absolute http(s)', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'crm/customers', method: 'GET' } })).message,
        "Service 'x': endpoint.url 'crm/customers' is not an absolute http:// or https:// URL " +
          '(e.g. http://crm:8080/customers/{customer_id})',
      );
      assert.match(
        thrown(() => new Service(newStack(), 'y', { endpoint: { url: 'ftp://crm/x', method: 'GET' } })).message,
        /^Service 'y': endpoint.url 'ftp:\/\/crm\/x' is not an absolute/,
      );
    });

    it('refuses an unsupported method', () => {
      const method = 'FETCH' as 'GET';
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method } })).message,
        "Service 'x': endpoint.method 'FETCH' is not supported: expected one of GET, POST, PUT, PATCH, DELETE",
      );
    });

    it('refuses a timeout that is not a positive integer', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint: { url: 'http://a:1/', method: 'GET' }, timeoutMs: 0 }))
          .message,
        "Service 'x': timeoutMs (0) must be an integer between 1 and 600000 (milliseconds)",
      );
    });

    it('refuses a URL placeholder that names no parameter', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint, input: { id: { type: 'string', required: true } } }))
          .message,
        "Service 'x': endpoint.url placeholder {customer_id} names no parameter: declare a top-level parameter " +
          "'customer_id' (or one with forwardAs: 'customer_id') or remove the placeholder",
      );
    });

    it('accepts a placeholder that names a forwardAs field', () => {
      const service = new Service(newStack(), 'x', {
        endpoint,
        input: { id: { type: 'string', required: true, forwardAs: 'customer_id' } },
      });
      assert.equal(service.toolConfig().backend.url, endpoint.url);
    });

    it('refuses a URL placeholder whose parameter is not required, naming the fix', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint, input: { customer_id: { type: 'string' } } })).message,
        "Service 'x': endpoint.url placeholder {customer_id} is filled from parameter 'customer_id', which is not " +
          'required: set required: true on input.customer_id (the gateway refuses a call without it)',
      );
    });

    it('names the parameter, not the forwarded field, when a forwardAs placeholder is optional', () => {
      assert.equal(
        thrown(
          () => new Service(newStack(), 'x', { endpoint, input: { id: { type: 'string', forwardAs: 'customer_id' } } }),
        ).message,
        "Service 'x': endpoint.url placeholder {customer_id} is filled from parameter 'id', which is not " +
          'required: set required: true on input.id (the gateway refuses a call without it)',
      );
    });

    it('refuses a raw inputSchema that leaves a placeholder parameter out of required', () => {
      const inputSchema = {
        type: 'object',
        properties: { customer_id: { type: 'string' } },
        additionalProperties: false,
      };
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint, inputSchema })).message,
        "Service 'x': endpoint.url placeholder {customer_id} is filled from parameter 'customer_id', which is not " +
          "required: add 'customer_id' to inputSchema.required (the gateway refuses a call without it)",
      );
    });

    for (const url of [
      'http://{host}/customers',
      'http://crm:{port}/customers',
      '{scheme}://crm/customers',
      'http:/{host}/customers',
    ]) {
      it(`refuses a placeholder before the path (${url})`, () => {
        assert.equal(
          thrown(() => new Service(newStack(), 'x', { endpoint: { url, method: 'GET' } })).message,
          `Service 'x': endpoint.url '${url}' has a placeholder in the scheme, host or port: placeholders may stand ` +
            'only in the path and query, so that callers cannot choose where the gateway connects',
        );
      });
    }

    it('accepts required placeholders in the path and the query', () => {
      const service = new Service(newStack(), 'x', {
        endpoint: { url: 'http://crm:8080/customers/{customer_id}?view={view}', method: 'GET' },
        input: { customer_id: { type: 'string', required: true }, view: { type: 'string', required: true } },
      });
      assert.equal(service.toolConfig().backend.url, 'http://crm:8080/customers/{customer_id}?view={view}');
    });

    it('refuses a container whose endpoint host is localhost', () => {
      assert.equal(
        thrown(
          () =>
            new Service(newStack(), 'x', {
              endpoint: { url: 'http://localhost:8080/', method: 'GET' },
              container: { image: 'acme/crm:1.4', port: 8080 },
            }),
        ).message,
        "Service 'x': endpoint.url host 'localhost' cannot name the backend container: the gateway reaches it by a " +
          'network alias; use a hostname such as http://x:8080/',
      );
    });

    it('refuses a container port out of range', () => {
      assert.equal(
        thrown(() => new Service(newStack(), 'x', { endpoint, input, container: { image: 'acme/crm:1.4', port: 0 } }))
          .message,
        "Service 'x': container.port (0) must be an integer between 1 and 65535",
      );
    });
  });

  describe('typed arguments', () => {
    it('types the arguments of a service whose input is declared `as const satisfies InputSpec`', () => {
      const getCustomerInput = {
        customer_id: { type: 'string', required: true, pattern: '^C-[0-9]{4}$' },
        limit: { type: 'integer', minimum: 1, maximum: 100 },
        status: { type: 'string', enum: ['open', 'closed'] },
      } as const satisfies InputSpec;
      type GetCustomerArgs = InferArgs<typeof getCustomerInput>;
      expectType<Equal<GetCustomerArgs, { customer_id: string; limit?: number; status?: 'open' | 'closed' }>>();

      const service = new Service(newStack(), 'get_customer', { endpoint, input: getCustomerInput });
      const args: GetCustomerArgs = { customer_id: 'C-0042', limit: 5, status: 'open' };
      const compiled = compileToolSchema(service.inputSchema);
      assert.ok(compiled.ok);
      assert.deepEqual(compiled.validator.validate(args), { valid: true });
    });
  });

  describe('backend container', () => {
    it('runs the image on the stack network under the endpoint host as alias', () => {
      const stack = newStack('desk');
      new Service(stack, 'get_customer', {
        endpoint,
        input,
        container: { image: 'acme/crm:1.4', port: 8080, env: { LOG_LEVEL: 'debug' } },
      });
      const json = synth(stack);
      const [container] = resourcesOf(json, 'docker_container');
      const [network] = resourcesOf(json, 'docker_network');
      const [image] = resourcesOf(json, 'docker_image');
      assert.equal(container.name, 'desk-get_customer');
      assert.match(container.image, /^\$\{docker_image\.get_customer_Image_[0-9A-F]+\.image_id\}$/);
      assert.deepEqual(image, { keep_locally: true, name: 'acme/crm:1.4' });
      assert.deepEqual(container.env, ['LOG_LEVEL=debug']);
      assert.equal(container.restart, 'unless-stopped');
      assert.deepEqual(container.labels, [{ label: 'cdktf-mcp-gateway.service', value: 'get_customer' }]);
      assert.deepEqual(container.networks_advanced, [
        { aliases: ['crm'], name: '${docker_network.McpNetwork_83819BD9.name}' },
      ]);
      assert.deepEqual(network, { name: 'desk-mcp' });
    });

    it('warns when the endpoint port and the container port differ', () => {
      const service = new Service(newStack(), 'get_customer', {
        endpoint,
        input,
        container: { image: 'acme/crm:1.4', port: 9000 },
      });
      assert.deepEqual(warningsOf(service), [
        "Service 'get_customer': endpoint.url uses port 8080 but container.port is 9000; the gateway calls the URL, so make them agree",
      ]);
    });

    it('refuses two containers for one host at synthesis', () => {
      const stack = newStack();
      const a = new Service(stack, 'a', { endpoint, input, container: { image: 'acme/crm:1.4', port: 8080 } });
      new Service(stack, 'b', { endpoint, input, container: { image: 'acme/crm:1.5', port: 8080 } });
      assert.deepEqual(a.node.validate(), [
        "Services 'b' and 'a' both deploy a container for host 'crm': one network alias can name only one container; " +
          "remove 'container' from all but one (services may share a backend)",
      ]);
    });

    it('lets services without a container share a backend deployed by another', () => {
      const stack = newStack();
      const a = new Service(stack, 'a', { endpoint, input, container: { image: 'acme/crm:1.4', port: 8080 } });
      const b = new Service(stack, 'b', { endpoint, input });
      new Gateway(stack, 'g', { services: [a, b], auth: { tokens: [{ id: 't', sha256: hashOf('t') }] } });
      const json = synth(stack);
      // one backend, and the gateway
      assert.deepEqual(
        resourcesOf(json, 'docker_container').map((c: { labels: { label: string }[] }) => c.labels[0].label),
        ['cdktf-mcp-gateway.service', 'cdktf-mcp-gateway.gateway'],
      );
    });

    it('has no healthcheck and no wait by default, and keeps the provider release of the bindings', () => {
      const stack = newStack('desk');
      new Service(stack, 'get_customer', { endpoint, input, container: { image: 'acme/crm:1.4', port: 8080 } });
      const json = synth(stack);
      const [container] = resourcesOf(json, 'docker_container');
      assert.equal(container.healthcheck, undefined);
      assert.equal(container.wait, undefined);
      assert.equal(container.wait_timeout, undefined);
      // only a gateway or a dashboard (uploaded files with an owner) needs kreuzwerker/docker ~> 4.6
      assert.notEqual(json.terraform.required_providers.docker.version, '~> 4.6');
    });

    it('runs a healthcheck command in the container, and the deploy waits for it to pass', () => {
      const stack = newStack('desk');
      new Service(stack, 'get_customer', {
        endpoint,
        input,
        container: { image: 'acme/crm:1.4', port: 8080, healthcheck: ['node', 'healthcheck.js'] },
      });
      const [container] = resourcesOf(synth(stack), 'docker_container');
      assert.deepEqual(container.healthcheck, {
        test: ['CMD', 'node', 'healthcheck.js'],
        interval: '5s',
        timeout: '5s',
        retries: 3,
        start_period: '30s',
      });
      assert.equal(container.wait, true);
      assert.equal(container.wait_timeout, 120);
    });

    it("waits for the image's own HEALTHCHECK with healthcheck: 'image'", () => {
      const stack = newStack('desk');
      new Service(stack, 'get_customer', {
        endpoint,
        input,
        container: { image: 'acme/crm:1.4', port: 8080, healthcheck: 'image' },
      });
      const [container] = resourcesOf(synth(stack), 'docker_container');
      assert.equal(container.healthcheck, undefined);
      assert.equal(container.wait, true);
      assert.equal(container.wait_timeout, 120);
    });

    it('refuses a healthcheck that is neither a command nor image, showing it and the two forms', () => {
      const make = (healthcheck: unknown) => () =>
        new Service(newStack(), 'get_customer', {
          endpoint,
          input,
          container: { image: 'acme/crm:1.4', port: 8080, healthcheck: healthcheck as 'image' },
        });
      const expected = (shown: string) =>
        `Service 'get_customer': container.healthcheck (${shown}) must be a command as a list of strings, ` +
        "e.g. ['node', 'healthcheck.js'] (without Docker's CMD prefix, which synthesis adds), or 'image' for the " +
        "image's own HEALTHCHECK";
      assert.equal(thrown(make([])).message, expected('[]'));
      assert.equal(thrown(make(['CMD', 'node', 'check.js'])).message, expected('["CMD","node","check.js"]'));
      assert.equal(thrown(make('curl -f http://localhost/')).message, expected("'curl -f http://localhost/'"));
      assert.equal(thrown(make(['node', ''])).message, expected('["node",""]'));
      assert.equal(thrown(make(42)).message, expected('42'));
    });
  });
});
