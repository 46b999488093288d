import { GoogleGenAI } from '@google/genai';
import OpenAI from 'openai';
import { ToolportError } from '../../core/errors.ts';
import type {
  GeneratedImage,
  ImageGenerationRequest,
  ImageGenerationService,
} from '../../core/tool-types.ts';

export interface ImageProviderConfig {
  apiKey: string;
  baseURL?: string;
  /** As `ProviderAdapterOptions.fetch`: NET-1's safe fetch for a non-admin's configuration. */
  fetch?: typeof globalThis.fetch;
}

export interface ImageGenerationServiceOptions {
  /** OpenAI Images API: `gpt-image-*`, `dall-e-*`. */
  openai?: ImageProviderConfig;
  /** Gemini image models through generateContent: `gemini-*-image*`. */
  gemini?: ImageProviderConfig;
  maxRetries?: number;
}

const OPENAI_QUALITIES = ['low', 'medium', 'high', 'auto'];

function base64ToBytes(data: string): Uint8Array {
  return new Uint8Array(Buffer.from(data, 'base64'));
}

/**
 * IMG-1 on the providers' image APIs: OpenAI Images (`images.generate`, base64 output) and Gemini image models
 * (`generateContent` with an IMAGE response modality, `inlineData` parts). The model name picks the provider.
 */
export function createImageGenerationService(options: ImageGenerationServiceOptions): ImageGenerationService {
  const openai =
    options.openai === undefined
      ? undefined
      : new OpenAI({
          apiKey: options.openai.apiKey,
          baseURL: options.openai.baseURL,
          maxRetries: options.maxRetries ?? 2,
          ...(options.openai.fetch === undefined ? {} : { fetch: options.openai.fetch }),
        });
  const gemini =
    options.gemini === undefined
      ? undefined
      : new GoogleGenAI({
          apiKey: options.gemini.apiKey,
          httpOptions: {
            ...(options.gemini.baseURL === undefined ? {} : { baseUrl: options.gemini.baseURL }),
            ...(options.gemini.fetch === undefined ? {} : { fetch: options.gemini.fetch }),
          },
        });

  async function withOpenAI(request: ImageGenerationRequest, signal: AbortSignal): Promise<GeneratedImage> {
    if (openai === undefined) throw notConfigured(request.model, 'OpenAI');
    const quality =
      request.quality !== undefined && OPENAI_QUALITIES.includes(request.quality)
        ? request.quality
        : undefined;
    const response = await openai.images.generate(
      {
        model: request.model,
        prompt: request.prompt,
        n: 1,
        ...(quality === undefined ? {} : { quality: quality as 'low' | 'medium' | 'high' | 'auto' }),
        ...(request.model.startsWith('dall-e') ? { response_format: 'b64_json' as const } : {}),
      },
      { signal },
    );
    const image = response.data?.[0];
    if (image?.b64_json === undefined) {
      throw new ToolportError('execution_failed', `${request.model} returned no image data.`);
    }
    return {
      data: base64ToBytes(image.b64_json),
      mimeType: `image/${response.output_format ?? 'png'}`,
      model: request.model,
      ...(image.revised_prompt === undefined ? {} : { revisedPrompt: image.revised_prompt }),
    };
  }

  async function withGemini(request: ImageGenerationRequest, signal: AbortSignal): Promise<GeneratedImage> {
    if (gemini === undefined) throw notConfigured(request.model, 'Gemini');
    const response = await gemini.models.generateContent({
      model: request.model,
      contents: request.prompt,
      config: { responseModalities: ['IMAGE', 'TEXT'], abortSignal: signal },
    });
    for (const part of response.candidates?.[0]?.content?.parts ?? []) {
      if (part.inlineData?.data !== undefined) {
        return {
          data: base64ToBytes(part.inlineData.data),
          mimeType: part.inlineData.mimeType ?? 'image/png',
          model: request.model,
        };
      }
    }
    throw new ToolportError(
      'execution_failed',
      `${request.model} returned no image (it may have refused the prompt).`,
    );
  }

  return {
    generateImage: (request, signal) =>
      request.model.startsWith('gemini') ? withGemini(request, signal) : withOpenAI(request, signal),
  };
}

function notConfigured(model: string, provider: string): ToolportError {
  return new ToolportError(
    'execution_failed',
    `Image model ${model} needs ${provider}, which is not configured on this server. Use another model or ask the operator to add the ${provider} API key.`,
  );
}
