import { Lazy } from 'cdktf';
import { Container } from '@cdktf/provider-docker/lib/container';
import { SECRETS_DIR, sensitiveBase64 } from '../src/config';

/** The user the gateway image runs as (`USER 1000:1000` in its Dockerfile): uploaded files it reads belong to it. */
export const GATEWAY_UID = 1000;

/**
 * The gateway containers' `user`: the image's, without the group. An upload with an owner makes Docker resolve the
 * container's user in its /etc/passwd, and Docker 20.10 cannot resolve the `uid:gid` form (`getent unable to find
 * entry "1000:1000"`); the uid alone resolves to the same user and group.
 */
export const GATEWAY_USER = String(GATEWAY_UID);

/** A file the Docker provider copies into a container before it starts (`upload`). */
export interface ContainerFile {
  /** The absolute path in the container. */
  readonly file: string;
  /**
   * The content: a Terraform literal or a reference such as a sensitive variable; with `sensitive`, the text itself.
   */
  readonly content: string;
  /**
   * Kept out of plans: uploaded as `content_base64` wrapped in `sensitive()`, so a plan shows "(sensitive value)"
   * instead of every line of the file (see `sensitiveBase64`).
   * @default false
   */
  readonly sensitive?: boolean;
  /**
   * The file mode, octal text.
   * @default '0444' (the gateway's user reads it, nobody writes it)
   */
  readonly permissions?: string;
  /**
   * Owned by the gateway's user (`GATEWAY_UID`) instead of root: for a secret readable by that user alone (`0400`).
   * @default false
   */
  readonly ownedByGateway?: boolean;
}

/**
 * A secret as a file under `/run/secrets/NAME`, readable by the gateway's user alone, as a Docker secret would be.
 * The value is followed by a line break, which the gateway drops when it reads the file: the provider refuses an
 * upload with empty content, and an empty secret must reach the gateway, which then says so itself.
 */
export function secretFile(name: string, value: string): ContainerFile {
  return { file: `${SECRETS_DIR}/${name}`, content: `${value}\n`, permissions: '0400', ownedByGateway: true };
}

/**
 * Sets a container's `upload` blocks, resolved at synthesis (services may be added after construction). Written
 * as an override because the file's `owner` and `group` (kreuzwerker/docker >= 4.6) are not in the generated
 * bindings; without them a file is root's, and a secret of mode 0400 would be unreadable by the gateway's user.
 */
export function uploadFiles(container: Container, files: () => readonly ContainerFile[]): void {
  container.addOverride(
    'upload',
    Lazy.anyValue({
      produce: () =>
        files().map((f) => ({
          file: f.file,
          ...(f.sensitive === true ? { content_base64: sensitiveBase64(f.content) } : { content: f.content }),
          permissions: f.permissions ?? '0444',
          ...(f.ownedByGateway === true ? { owner: String(GATEWAY_UID), group: String(GATEWAY_UID) } : {}),
        })),
    }),
  );
}
