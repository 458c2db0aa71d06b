/**
 * A wizard from a view with `form.steps`: the form's group sections (built by
 * ./toFormily) become the panes of one Formily FormStep, a step per group, titled by
 * the group. The FormStep instance comes from the SchemaField scope as `formStep`
 * (src/schema/Wizard.tsx creates it); Formily validates only the visible pane on
 * `formStep.next()`, which is the per-step validation. Pure.
 */
import type { ISchema } from '@formily/json-schema';

/** The key of a step's pane: the group's key. */
export const stepName = (groupKey: string) => `step_${groupKey}`;

/**
 * `groups`: each group's key, title and the grid of its fields, in order. Answers the
 * form's root schema.
 */
export function asSteps(groups: Array<{ key: string; title: string; grid: ISchema }>): ISchema {
  const panes: Record<string, ISchema> = {};
  groups.forEach((g, i) => {
    panes[stepName(g.key)] = {
      type: 'void',
      'x-index': i,
      'x-component': 'FormStep.StepPane',
      'x-component-props': { title: g.title, 'data-testid': `step-${g.key}` },
      properties: { grid: g.grid },
    };
  });
  return {
    type: 'object',
    properties: {
      steps: { type: 'void', 'x-component': 'FormStep', 'x-component-props': { formStep: '{{formStep}}' }, properties: panes },
    },
  };
}
