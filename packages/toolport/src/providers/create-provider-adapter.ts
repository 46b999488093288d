import { createAnthropicAdapter } from './anthropic/anthropic-stream-adapter.ts';
import { createGeminiInteractionsAdapter } from './gemini/gemini-interactions-stream-adapter.ts';
import { createGeminiAdapter } from './gemini/gemini-stream-adapter.ts';
import { createOpenAIChatAdapter } from './openai-chat/openai-chat-stream-adapter.ts';
import { createOpenAIResponsesAdapter } from './openai-responses/openai-responses-stream-adapter.ts';
import type { ProviderAdapter, ProviderAdapterOptions, ProviderName } from './provider-adapter.ts';

export { API_KEY_ENVIRONMENT_VARIABLES } from './api-key-variables.ts';

export function createProviderAdapter(
  provider: ProviderName,
  options: ProviderAdapterOptions,
): ProviderAdapter {
  switch (provider) {
    case 'openai':
      return createOpenAIResponsesAdapter(options);
    case 'openai-chat':
      return createOpenAIChatAdapter(options);
    case 'anthropic':
      return createAnthropicAdapter(options);
    case 'gemini':
      return createGeminiAdapter(options);
    case 'gemini-interactions':
      return createGeminiInteractionsAdapter(options);
  }
}
