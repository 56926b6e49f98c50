// @ts-check
/** Errors the control route tells apart. */

/** A failure that is the user's to fix (the Worker has no handler for the drive, ...). */
export class UserFacingError extends Error {
  name = "UserFacingError";
}
