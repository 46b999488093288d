/**
 * `toolport/providers`: the provider adapters on the official SDKs (OpenAI Responses and Chat Completions, Anthropic
 * Messages, Gemini and Gemini Interactions) and image generation. A separate entry because the SDKs take ~0.4 s and
 * ~50 MB to load: the root entry (`toolport`) keeps the mappers, the agent loop and the event types, and loads none.
 *
 * @example
 * ```ts
 * import { createToolRuntime, registerBuiltinTools, runAgentTurn, startConversation, ToolRegistry } from 'toolport';
 * import { createProviderAdapter } from 'toolport/providers';
 *
 * const runtime = createToolRuntime({ entries: registerBuiltinTools(new ToolRegistry()).listEntries(), userId: 'me' });
 * const adapter = createProviderAdapter('anthropic', { model: 'claude-sonnet-4-5', apiKey: process.env.ANTHROPIC_API_KEY! });
 * const session = startConversation({ adapter, runtime });
 * for await (const event of runAgentTurn({ session, runtime, userMessage: 'What day is it?' })) console.log(event);
 * ```
 */
export { API_KEY_ENVIRONMENT_VARIABLES, createProviderAdapter } from './create-provider-adapter.ts';
export { createOpenAIResponsesAdapter } from './openai-responses/openai-responses-stream-adapter.ts';
export { createOpenAIChatAdapter } from './openai-chat/openai-chat-stream-adapter.ts';
export { createAnthropicAdapter } from './anthropic/anthropic-stream-adapter.ts';
export { createGeminiAdapter } from './gemini/gemini-stream-adapter.ts';
export { createGeminiInteractionsAdapter } from './gemini/gemini-interactions-stream-adapter.ts';
export { createImageGenerationService } from './images/image-generation-service.ts';
export type {
  ImageGenerationServiceOptions,
  ImageProviderConfig,
} from './images/image-generation-service.ts';
// The loop and its types, so one import of this entry is enough to run a turn.
export { DEFAULT_MAX_ITERATIONS, runAgentTurn, startConversation } from './agent-loop.ts';
export type { AgentTurnOptions, AgentTurnSummary, StartConversationOptions } from './agent-loop.ts';
export { PROVIDER_NAMES, ProviderStreamError } from './provider-adapter.ts';
export type {
  ProviderAdapter,
  ProviderAdapterOptions,
  ProviderName,
  ProviderSession,
  SessionOptions,
} from './provider-adapter.ts';
export type { ErrorEvent, StreamEvent } from './stream-events.ts';
