/** A typed client for the shop's JSON endpoints. */
export interface CartLine {
  sku: string;
  title: string;
  quantity: number;
}

export class ShopClient {
  constructor(private readonly base: string) {}

  /** Fetches the current user's cart lines. */
  async cart(): Promise<CartLine[]> {
    const response = await fetch(`${this.base}/cart`);
    return this.decode(response);
  }

  private async decode(response: Response): Promise<CartLine[]> {
    if (!response.ok) {
      throw new Error(`cart request failed: ${response.status}`);
    }
    return response.json();
  }
}
