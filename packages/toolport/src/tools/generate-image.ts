import { toolFailure } from '../core/execute-tool.ts';
import {
  TIMEOUT_SECONDS_DESCRIPTOR,
  clampIntegerSetting,
  getStringSetting,
} from '../core/settings-policy.ts';
import {
  defineTool,
  type EffectiveToolSettings,
  type JsonSchema,
  type StoredImage,
  type ToolContext,
  type ToolDefinition,
} from '../core/tool-types.ts';

export const GENERATE_IMAGE_DESCRIPTION =
  'Creates one or more images from a text prompt with an image generation model. Describe the subject, style, ' +
  'composition and any text that must appear. Returns a link for each image; show the links to the user.';

export const IMAGE_QUALITIES = ['low', 'medium', 'high', 'auto'] as const;
export const MAX_IMAGES_PER_CALL = 4;

export interface GenerateImageArguments {
  prompt: string;
  count?: number;
  quality?: string;
  model?: string;
}

export interface GenerateImagePlan {
  prompt: string;
  model: string;
  quality: string;
  count: number;
}

export interface GeneratedImageSummary {
  index: number;
  id?: string;
  url?: string;
  mimeType: string;
  bytes: number;
  revisedPrompt?: string;
}

export interface GenerateImageResult {
  prompt: string;
  model: string;
  quality: string;
  requested: number;
  generated: number;
  images: GeneratedImageSummary[];
  failures: Array<{ index: number; message: string }>;
}

function maxImages(settings: EffectiveToolSettings): number {
  return clampIntegerSetting(settings.parameters.maxImagesPerCall, {
    minimum: 1,
    maximum: MAX_IMAGES_PER_CALL,
    fallback: MAX_IMAGES_PER_CALL,
  });
}

function letAiDecideQuality(settings: EffectiveToolSettings): boolean {
  return settings.parameters.letAiDecideQuality !== false;
}

/**
 * IMG-1 planning, pure: how many images (the model's `count`, capped by `maxImagesPerCall`), which model and which
 * quality (the model's choice only when `letAiDecideQuality`, else the configured default).
 */
export function createGenerateImageToolPlan(
  args: GenerateImageArguments,
  settings: EffectiveToolSettings,
): GenerateImagePlan {
  const defaultQuality = getStringSetting(settings.parameters.defaultQuality, 'auto');
  return {
    prompt: args.prompt,
    model: args.model ?? getStringSetting(settings.parameters.defaultModel, 'gpt-image-1'),
    quality: letAiDecideQuality(settings) && args.quality !== undefined ? args.quality : defaultQuality,
    count: Math.min(args.count ?? 1, maxImages(settings)),
  };
}

function buildParameters(settings: EffectiveToolSettings | undefined): JsonSchema {
  const properties: JsonSchema = {
    prompt: { type: 'string', minLength: 1, description: 'What to draw, in detail.' },
    // The argument's range stays 1–4 (IMG-1); the configured cap is announced and applied by the plan.
    count: {
      type: 'integer',
      minimum: 1,
      maximum: MAX_IMAGES_PER_CALL,
      description: `How many images to create (default 1; at most ${
        settings === undefined ? MAX_IMAGES_PER_CALL : maxImages(settings)
      } per call, more are capped).`,
    },
  };
  if (settings === undefined || letAiDecideQuality(settings)) {
    properties.quality = {
      type: 'string',
      enum: [...IMAGE_QUALITIES],
      description: 'Rendering quality; higher is slower. Defaults to the configured quality.',
    };
  }
  properties.model = {
    type: 'string',
    description: 'Image model, e.g. gpt-image-1 or gemini-2.5-flash-image. Defaults to the configured model.',
  };
  return { type: 'object', properties, required: ['prompt'], additionalProperties: false };
}

function buildDefinition(settings?: EffectiveToolSettings): ToolDefinition {
  return {
    name: 'generate_image',
    description: GENERATE_IMAGE_DESCRIPTION,
    parameters: buildParameters(settings),
  };
}

async function generateOne(
  plan: GenerateImagePlan,
  index: number,
  context: ToolContext,
): Promise<GeneratedImageSummary> {
  const service = context.services.images!;
  const image = await service.generateImage(
    { prompt: plan.prompt, model: plan.model, quality: plan.quality },
    context.signal,
  );
  let stored: StoredImage | undefined;
  if (context.services.imageStore !== undefined) {
    stored = await context.services.imageStore.saveImage(image, {
      userId: context.userId,
      chatId: context.chatId,
      callId: context.callId,
    });
  }
  const summary: GeneratedImageSummary = {
    index,
    ...(stored === undefined ? {} : { id: stored.id, url: stored.url }),
    mimeType: image.mimeType,
    bytes: image.data.byteLength,
    ...(image.revisedPrompt === undefined ? {} : { revisedPrompt: image.revisedPrompt }),
  };
  context.emitPartialResult(summary);
  return summary;
}

export const generateImageTool = defineTool<GenerateImageArguments>({
  definition: buildDefinition(),
  buildDefinition,
  settings: {
    title: 'Image generation',
    description: 'Lets the model create images with the configured image models.',
    category: 'image',
    // Every call costs money and needs an image provider configured: the operator opts in.
    enabledByDefault: false,
    canDisable: true,
    defaultParameters: {
      timeoutSeconds: 30,
      maxImagesPerCall: MAX_IMAGES_PER_CALL,
      defaultQuality: 'auto',
      defaultModel: 'gpt-image-1',
      letAiDecideQuality: true,
    },
    parameterDescriptors: [
      TIMEOUT_SECONDS_DESCRIPTOR,
      {
        name: 'maxImagesPerCall',
        title: 'Images per call',
        type: 'integer',
        description: 'The most images one call may create (the model may ask for fewer).',
        default: MAX_IMAGES_PER_CALL,
        minimum: 1,
        maximum: MAX_IMAGES_PER_CALL,
      },
      {
        name: 'defaultQuality',
        title: 'Default quality',
        type: 'enum',
        description: 'Quality used when the model does not choose (or may not).',
        default: 'auto',
        allowedValues: [...IMAGE_QUALITIES],
      },
      {
        name: 'defaultModel',
        title: 'Default model',
        type: 'string',
        description: 'Image model used when the model names none.',
        default: 'gpt-image-1',
      },
      {
        name: 'letAiDecideQuality',
        title: 'Let the model choose the quality',
        type: 'boolean',
        description: 'When off, the quality argument is not offered to the model and the default is used.',
        default: true,
      },
    ],
  },
  annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
  execute: async (args, context): Promise<GenerateImageResult> => {
    if (context.services.images === undefined) {
      throw toolFailure('Image generation is not configured on this server (no image provider API key).');
    }
    const plan = createGenerateImageToolPlan(args, context.settings);
    // Images are generated concurrently; each is streamed as a partial result the moment it is stored.
    let done = 0;
    const settled = await Promise.allSettled(
      Array.from({ length: plan.count }, (_, index) =>
        generateOne(plan, index, context).finally(() => {
          done += 1;
          context.reportProgress({
            progress: done,
            total: plan.count,
            message: `image ${done} of ${plan.count}`,
          });
        }),
      ),
    );
    const images: GeneratedImageSummary[] = [];
    const failures: Array<{ index: number; message: string }> = [];
    for (const [index, outcome] of settled.entries()) {
      if (outcome.status === 'fulfilled') images.push(outcome.value);
      else {
        const reason: unknown = outcome.reason;
        failures.push({ index, message: reason instanceof Error ? reason.message : String(reason) });
      }
    }
    if (images.length === 0) {
      throw toolFailure(`No image was created: ${failures.map((failure) => failure.message).join('; ')}`);
    }
    return {
      prompt: plan.prompt,
      model: plan.model,
      quality: plan.quality,
      requested: plan.count,
      generated: images.length,
      images,
      failures,
    };
  },
});
