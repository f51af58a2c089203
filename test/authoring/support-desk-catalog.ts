/**
 * The support desk's tool catalog as descriptors only (no handler is ever called): what the
 * authoring tests, the draft corpus and the eval read the support-desk tools through.
 */
import { Helpdesk, supportDeskTools } from '../../examples/support-desk/index.ts';
import type { ToolDescriptor } from '../../src/core/tools/index.ts';

export function supportDeskCatalog(): ToolDescriptor[] {
  const desk = new Helpdesk(':memory:');
  try {
    return supportDeskTools(desk).map(
      ({ handler: _h, simulate: _s, reconcile: _r, ...descriptor }) => descriptor as ToolDescriptor,
    );
  } finally {
    desk.shutdown();
  }
}
