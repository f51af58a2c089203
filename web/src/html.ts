/** htm bound to preact's h: the console's templates are tagged strings, no JSX compiler. */

import htm from 'htm';
import { h } from 'preact';

export const html = htm.bind(h);
