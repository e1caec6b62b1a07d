/** Types of the ESLint rule in prefer-defined.js (loaded by eslint.config.js and its test). */
import type { Rule } from 'eslint';

export declare const preferDefined: Rule.RuleModule;
