// Pieces the reply schemas of several operations share.
import * as v from 'valibot';

/** Whole numbers, chances and objects whose fields are not described, in replies. */
export const Integer = v.pipe(v.number(), v.integer());
export const Chance = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
export const Open = v.looseObject({});
