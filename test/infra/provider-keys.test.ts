/**
 * A provider names its own inputs by key: in `check`, and in `diff`'s replace
 * and update lists. Those keys are typed, so a misspelt one fails `npm run
 * typecheck` (each @ts-expect-error below fails it if its line compiles), instead
 * of a field that is never checked or never compared.
 */
import { checkInputs, diffKeys, type GraphResourceInputs } from "../../infra/providers/inputs";

interface WidgetInputs extends GraphResourceInputs {
  displayName: string;
  parentId: string;
}

const COMMON = {
  graphUrl: "https://graph.microsoft.com",
  authorityUrl: "https://login.microsoftonline.com",
  consistencyWindowMs: 120_000,
  providerVersion: "0.1.0",
};
const WIDGET: WidgetInputs = { ...COMMON, displayName: "w", parentId: "a1000000-0000-0000-0000-000000000001" };

describe("a provider's own keys", () => {
  it("diff compares each key it names, and a misspelt one does not compile", () => {
    const moved = { ...WIDGET, parentId: "a9000000-0000-0000-0000-000000000009" };
    expect(diffKeys<WidgetInputs>(WIDGET, moved, { replace: ["parentId"], update: ["displayName"] }).replaces).toEqual(["parentId"]);
    // @ts-expect-error "parentID" is not a key of WidgetInputs: before, it compiled and parentId was never compared.
    diffKeys<WidgetInputs>(WIDGET, moved, { replace: ["parentID"], update: ["displayName"] });
    // @ts-expect-error the common keys are compared for every resource; a provider does not list them again.
    diffKeys<WidgetInputs>(WIDGET, moved, { replace: ["graphUrl"], update: [] });
  });

  it("check reads every own key, and a missing or misspelt one does not compile", () => {
    const checked = checkInputs(WIDGET, (c) => ({ displayName: c.text("displayName", 256), parentId: c.guid("parentId") }));
    expect(checked.failures).toEqual([]);
    // @ts-expect-error parentId is not checked: it would have reached create unchecked.
    checkInputs(WIDGET, (c) => ({ displayName: c.text("displayName", 256) }));
    // @ts-expect-error "parentID" is not a key of WidgetInputs.
    checkInputs(WIDGET, (c) => ({ displayName: c.text("displayName", 256), parentID: c.guid("parentId") }));
  });
});
