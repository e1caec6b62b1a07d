/** Object name rules per kind (apimachinery name validation), answered as 422 Invalid like the API server. */
import * as E from 'fp-ts/lib/Either.js';
import type { ObjectRef } from '../../../core/model/resource.js';
import { clusterError, type ClusterError } from '../../../core/ports/errors.js';
import type { KindInfo } from '../kinds/index.js';
import { isDnsSubdomain } from './label-syntax.js';

const dnsLabel = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const dns1035Label = /^[a-z]([-a-z0-9]*[a-z0-9])?$/;

type NameRule = { readonly test: (name: string) => boolean; readonly hint: string };

const subdomain: NameRule = {
  test: isDnsSubdomain,
  hint: "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character",
};
const label: NameRule = {
  test: (n) => n.length <= 63 && dnsLabel.test(n),
  hint: 'a lowercase RFC 1123 label (at most 63 characters)',
};
const label1035: NameRule = {
  test: (n) => n.length <= 63 && dns1035Label.test(n),
  hint: 'a DNS-1035 label (at most 63 characters, starting with a letter)',
};
const pathSegment: NameRule = {
  test: (n) => n !== '.' && n !== '..' && !/[/%]/.test(n),
  hint: 'may not be "." or ".." and may not contain "/" or "%"',
};

const ruleFor = (info: KindInfo): NameRule => {
  if (info.group === '' && info.kind === 'Namespace') return label;
  if (info.group === '' && info.kind === 'Service') return label1035;
  return info.group === 'rbac.authorization.k8s.io' ? pathSegment : subdomain;
};

/** `Right(name)` when the kind accepts it, else Invalid with the field cause. */
export const validateName = (info: KindInfo, ref: ObjectRef): E.Either<ClusterError, string> => {
  const rule = ruleFor(info);
  return ref.name.length > 0 && rule.test(ref.name)
    ? E.right(ref.name)
    : E.left(
        clusterError(
          'Invalid',
          `${info.kind} "${ref.name}" is invalid: metadata.name: Invalid value: "${ref.name}": ${rule.hint}`,
          {
            ref,
            causes: [
              {
                field: 'metadata.name',
                reason: 'FieldValueInvalid',
                message: `Invalid value: "${ref.name}": ${rule.hint}`,
              },
            ],
          },
        ),
      );
};
