/** The drive items and comments `agent-user comments` reads from the emulated tenant. */

export interface Comment {
  id: string;
  content: string;
  replies: Array<Record<string, unknown>>;
  [field: string]: unknown;
}

export interface DriveItem {
  driveId: string;
  id: string;
  name: string;
  webUrl: string;
  /** The sharing URL whose u! id resolves to this item. */
  shareUrl: string;
  /** Answer the comments endpoints with 404 itemNotFound, as Graph does for Word documents. */
  commentsNotFound?: boolean;
  comments: Comment[];
  [field: string]: unknown;
}
