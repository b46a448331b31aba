DROP INDEX "messages_user_box_idx";--> statement-breakpoint
ALTER TABLE "messages" ADD COLUMN "replace_key" text;--> statement-breakpoint
CREATE INDEX "messages_user_box_time_idx" ON "messages" USING btree ("user_id","box","created_at","id");--> statement-breakpoint
CREATE UNIQUE INDEX "messages_user_replace_key" ON "messages" USING btree ("user_id","replace_key") WHERE "messages"."replace_key" is not null;