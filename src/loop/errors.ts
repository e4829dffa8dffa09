/**
 * @module src/loop/errors
 * The loop's one error of its own: a model (or its adapter) answered with
 * something that is not a Messages API message. Tool failures never throw
 * here; they go back to the model as `is_error` results.
 */
import { CorralError } from "../errors.js";

export class ModelResponseError extends CorralError {
  override name = "ModelResponseError";

  constructor(message: string, issues: unknown[] = []) {
    super("invalid_model_response", `${message}; check the model adapter`, { issues });
  }
}
