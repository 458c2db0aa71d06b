/** Types of scripts/ui-build.mjs for the TypeScript callers (bench). */
export declare const root: string;
export declare function uiBuildIsCurrent(distDir?: string): boolean;
export declare function ensureUiBuild(options?: { log?: (msg: string) => void; distDir?: string }): boolean;
