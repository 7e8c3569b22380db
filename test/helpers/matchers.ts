// vitest's asymmetric matchers typed as the values they stand for (vitest types them `any`,
// which the linter will not let spread through a test).
import { expect } from 'vitest';

/** `expect.stringContaining(text)`, as a string. */
export const textContaining = (text: string): string => expect.stringContaining(text) as string;

/** `expect.stringMatching(pattern)`, as a string. */
export const textMatching = (pattern: RegExp): string => expect.stringMatching(pattern) as string;

/** `expect.arrayContaining(items)`, as an array of them. */
export const listContaining = (items: unknown[]): unknown[] => expect.arrayContaining(items) as unknown[];

/** `expect.objectContaining(fields)`, as an object. */
export const objectWith = (fields: Record<string, unknown>): object => expect.objectContaining(fields) as object;
