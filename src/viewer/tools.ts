/**
 * The tools the left mouse button can take (texts viewer.tool.<key>); the middle button
 * pans, the right zooms and the wheel scrolls whatever is chosen. Pure: the toolbar
 * reads it without loading Cornerstone.
 */
export const TOOL_KEYS = ['windowLevel', 'pan', 'zoom', 'length', 'angle', 'rectangleRoi', 'ellipseRoi'] as const;

export type ToolKey = (typeof TOOL_KEYS)[number];

/** Tools that draw measurements (their annotations stay editable whichever tool is chosen). */
export const MEASURING_TOOLS: readonly ToolKey[] = ['length', 'angle', 'rectangleRoi', 'ellipseRoi'];
