import { isPending } from "./pending";

/*
 * How deep an argument of the kit may nest. The deepest the kit reads is an
 * agent's app role, agents[i].appRoles[j].roles[k]: four containers. Every
 * walk of the arguments (Pulumi's own unwrapping of them first of all)
 * recurses, so a value nested thousands of levels deep would end it with
 * "Maximum call stack size exceeded", naming nothing: it is measured here
 * first, without recursion, and refused by name.
 */

/** The most containers (lists and objects) an argument may nest, well past the kit's own four. */
export const MAX_INPUT_DEPTH = 32;

/**
 * Whether `value` nests more than `max` containers (lists and objects), an
 * Output or a promise counted as a leaf (what it holds is unknown until it
 * resolves). Iterative, and it stops at `max`: a cycle is too deep too.
 */
export function nestsDeeperThan(value: unknown, max: number = MAX_INPUT_DEPTH): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [item, depth] = stack.pop()!;
    if (item === null || typeof item !== "object" || isPending(item)) continue;
    if (depth === max) return true;
    for (const child of Object.values(item)) stack.push([child, depth + 1]);
  }
  return false;
}

/** The problem of an argument that nests too deep, in the words of the other argument checks. */
export const TOO_DEEP = `nests more than ${MAX_INPUT_DEPTH} lists and objects deep; no argument of the kit goes past 4 (agents[i].appRoles[j].roles)`;
