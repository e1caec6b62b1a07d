/** apimachinery's duration.HumanDuration: how `kubectl get` shows an age (5s, 3m20s, 4h, 12d). */
export const humanDuration = (ms: number): string => {
  const seconds = Math.trunc(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.trunc(seconds / 60);
  const unit = (n: number, u: string, m: number, v: string): string => (m === 0 ? `${n}${u}` : `${n}${u}${m}${v}`);
  if (minutes < 10) return unit(minutes, 'm', seconds % 60, 's');
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.trunc(minutes / 60);
  if (hours < 8) return unit(hours, 'h', minutes % 60, 'm');
  if (hours < 48) return `${hours}h`;
  const days = Math.trunc(hours / 24);
  if (hours < 24 * 8) return unit(days, 'd', hours % 24, 'h');
  if (hours < 24 * 365 * 2) return `${days}d`;
  if (hours < 24 * 365 * 8) return unit(Math.trunc(days / 365), 'y', days % 365, 'd');
  return `${Math.trunc(days / 365)}y`;
};
