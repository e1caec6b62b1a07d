/** Types of the ESLint plugin in no-module-state.js (loaded by eslint.config.js and its test). */
import type { ESLint, Rule } from 'eslint';

export declare const noModuleState: Rule.RuleModule;
declare const plugin: ESLint.Plugin;
export default plugin;
