import { ShopClient, CartLine } from "./api";
import { escapeHtml } from "./escape";

/** Renders one cart line; titles come from users, so they are escaped. */
export function renderLine(line: CartLine): string {
  return `<li>${escapeHtml(line.title)} x ${line.quantity}</li>`;
}

/** Loads the cart and renders it into `root`. */
export async function showCart(client: ShopClient, root: HTMLElement): Promise<void> {
  const lines = await client.cart();
  root.innerHTML = `<ul>${lines.map(renderLine).join("")}</ul>`;
}
