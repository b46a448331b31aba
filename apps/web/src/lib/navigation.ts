/** Navigation from outside components (the API client, session expiry). Set by the router. */
type NavigateFn = (to: string, options?: { replace?: boolean }) => void;

let navigateFn: NavigateFn = (to) => {
  window.location.assign(to);
};

export function registerNavigate(fn: NavigateFn): void {
  navigateFn = fn;
}

export function navigateTo(to: string, options?: { replace?: boolean }): void {
  navigateFn(to, options);
}
