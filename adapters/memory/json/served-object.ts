/** Objects as the server answers them: a private deep copy, at the apiVersion the client asked for. */
import { withKey } from '../../../core/json/json.js';
import type { Resource } from '../../../core/model/resource.js';
import { deepCopy } from './json-copy.js';

export const servedAs = (object: Resource, apiVersion: string): Resource =>
  deepCopy(object.apiVersion === apiVersion ? object : withKey(object, 'apiVersion', apiVersion));
