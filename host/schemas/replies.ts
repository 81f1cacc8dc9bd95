// Pieces the reply schemas of several operations share.
import * as v from 'valibot';

/** Whole numbers and chances, in replies. */
export const Integer = v.pipe(v.number(), v.integer());
export const Chance = v.pipe(v.number(), v.minValue(0), v.maxValue(1));
/** An object the reply does not describe field by field (it says which, and where it is documented). */
export const Open = v.looseObject({});
/** A map of any fields: declared open, so a strict reader (and a generated client) knows it takes any key. */
export const OpenMap = v.record(v.string(), v.unknown());
