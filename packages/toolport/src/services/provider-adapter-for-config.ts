import type { ToolportLogger } from '../core/tool-types.ts';
import { createProviderAdapter } from '../providers/create-provider-adapter.ts';
import type { ProviderAdapter } from '../providers/provider-adapter.ts';
import type { ResolvedProviderConfig } from './provider-config-service.ts';

export interface AdapterForConfigOptions {
  model: string;
  maxRetries?: number;
  maxOutputTokens?: number;
  logger?: ToolportLogger;
}

/**
 * The one place a user's provider configuration becomes an adapter: chat turns, sub-agent turns (AGENT-1) and the
 * summary tools' completions (WEB-1, YT-1) all come through here, so a rule about configurations (a base URL, a key)
 * is applied once.
 */
export function createAdapterForConfig(
  resolved: ResolvedProviderConfig,
  options: AdapterForConfigOptions,
): ProviderAdapter {
  return createProviderAdapter(resolved.config.provider, {
    model: options.model,
    apiKey: resolved.apiKey,
    ...(resolved.config.baseUrl === null ? {} : { baseURL: resolved.config.baseUrl }),
    // AUTH-2: a non-admin's configuration carries NET-1's fetch, so its base URL is checked at connect time.
    ...(resolved.fetch === undefined ? {} : { fetch: resolved.fetch }),
    ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
    ...(options.maxOutputTokens === undefined ? {} : { maxOutputTokens: options.maxOutputTokens }),
    ...(options.logger === undefined ? {} : { logger: options.logger }),
  });
}
