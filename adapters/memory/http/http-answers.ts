/** Writing answers on the wire: JSON, plain text, and errors as kube-apiserver answers them; request media types. */
import type { ServerResponse } from 'node:http';
import * as E from 'fp-ts/lib/Either.js';
import type { JsonObject, JsonValue } from '../../../core/json/json.js';
import type { ClusterError } from '../../../core/ports/errors.js';
import type { KindAt } from './api-routes.js';
import { decodeProtobufBody, PROTOBUF_MEDIA_TYPE } from './protobuf-body.js';
import { errorAnswer } from './status-response.js';

export const sendJson = (
  response: ServerResponse,
  code: number,
  body: JsonValue,
  headers: Readonly<Record<string, string>> = {},
): void => {
  const text = JSON.stringify(body);
  response.writeHead(code, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    ...headers,
  });
  response.end(text);
};

/** An error as the API server answers it; code 0 (network failure) drops the connection instead. */
export const sendError = (response: ServerResponse, error: ClusterError, kind?: KindAt): void => {
  if (error.code === 0) {
    response.socket?.destroy();
    return;
  }
  const answer = errorAnswer(error, kind);
  sendJson(response, answer.code, answer.body, answer.headers);
};

export const sendText = (response: ServerResponse, text: string): void => {
  response.writeHead(200, { 'Content-Type': 'text/plain', 'Content-Length': Buffer.byteLength(text) });
  response.end(text);
};

export const mediaType = (header: string | undefined): string =>
  (header ?? '').split(';')[0]?.trim().toLowerCase() ?? '';

/**
 * The request body as text in a media type the verbs read: protobuf create and update bodies
 * (client-go's typed clients, e.g. `kubectl create namespace`) decoded to the JSON they stand for.
 */
export const jsonBody = (
  method: string,
  contentType: string,
  bytes: Buffer,
): E.Either<ClusterError, { readonly text: string; readonly contentType: string }> => {
  if (contentType !== PROTOBUF_MEDIA_TYPE || (method !== 'POST' && method !== 'PUT'))
    return E.right({ text: bytes.toString('utf8'), contentType });
  return E.map((object: JsonObject) => ({ text: JSON.stringify(object), contentType: 'application/json' }))(
    decodeProtobufBody(bytes),
  );
};
