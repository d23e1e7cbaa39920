/**
 * azuread's errors as a Pulumi user reads them. The provider returns a
 * Terraform diagnostic, `tf.ErrorDiagF(err, "Adding password for %s", id)`
 * (internal/helpers/tf/errors.go): a summary, the error as its detail, and
 * sometimes the attribute it is about. pulumi-terraform-bridge prints one as
 * `[attribute] summary: detail` (pkg/tfshim/diagnostics/error.go) inside
 * go-multierror's list (pkg/tfshim/sdk-v2/diagnostics.go).
 */

/** The text of one diagnostic. */
export function diagnosticText(summary: string, cause?: unknown, attribute?: string): string {
  const detail = cause === undefined ? "" : cause instanceof Error ? cause.message : String(cause);
  return `${attribute ? `[${attribute}] ` : ""}${detail ? `${summary}: ${detail}` : summary}`;
}

/** One diagnostic as the error the engine shows. */
export function azureadError(summary: string, cause?: unknown, attribute?: string): Error {
  return new Error(`1 error occurred:\n\t* ${diagnosticText(summary, cause, attribute)}\n\n`);
}

/** An id parsed, or azuread's diagnostic on the `id` attribute for one it cannot parse. */
export function parsedId<T>(id: string, parse: (id: string) => T, summary: string): T {
  try {
    return parse(id);
  } catch (err) {
    throw azureadError(summary, err, "id");
  }
}

/**
 * A create that made its object and then failed, as azuread's grant and
 * assignment fail when their read-back does (the id is already set): the
 * Node provider SDK reports an error carrying `id` as ErrorResourceInitFailed,
 * so the engine keeps the object in the state instead of losing track of it.
 */
export function initFailed(cause: unknown, id: string, properties: Record<string, unknown>): Error {
  const error = cause instanceof Error ? cause : new Error(String(cause));
  return Object.assign(error, { id, properties: { ...properties, id }, reasons: [error.message] });
}
