# The X program the VNC tests look at (apps/server/src/testing/vnc.ts): one window covering
# the whole screen in a solid, known colour. Each key press toggles red <-> green, is appended
# to the key log (one keysym a line) and its character shown at the bottom, so a test can
# tell "typing reached the program" from "nothing reached it".
# stdin lines: "colour #rrggbb" sets the colour; "flip <ms>" alternates red/green every <ms>
# milliseconds (0 stops); the answer "ok" on stdout says the colour is on screen.
import ctypes
import signal
import sys
import threading
import tkinter

# End with the test process even if it never says so (PR_SET_PDEATHSIG = 1).
ctypes.CDLL(None).prctl(1, signal.SIGTERM)

title, width, height, key_log, ready_file, flip_ms, display = sys.argv[1:8]
RED, GREEN = "#ff0000", "#00ff00"

# The X display comes as an argument (the fixture passes no environment of its own).
root = tkinter.Tk(screenName=display)
root.title(title)
# No window manager runs in Xvnc: a toplevel at +0+0 the size of the screen covers it all.
root.geometry(f"{width}x{height}+0+0")
root.configure(background=RED, highlightthickness=0, borderwidth=0)
text = tkinter.Label(root, text="", background=RED, foreground="#000000", anchor="w")
text.place(x=0, rely=1.0, anchor="sw")
state = {"colour": RED, "typed": "", "flip": int(flip_ms), "timer": None}


def settle():
    """Draws what is pending and waits until the X server has it (a round trip)."""
    root.update_idletasks()
    root.winfo_pointerxy()


def paint(colour):
    state["colour"] = colour
    root.configure(background=colour)
    text.configure(background=colour)


def toggle():
    paint(GREEN if state["colour"] == RED else RED)


def on_key(event):
    with open(key_log, "a", encoding="utf-8") as log:
        log.write(event.keysym + "\n")
    if event.char and event.char.isprintable():
        state["typed"] = (state["typed"] + event.char)[-40:]
        text.configure(text=state["typed"])
    toggle()


def flip():
    state["timer"] = None
    if state["flip"] > 0:
        toggle()
        state["timer"] = root.after(state["flip"], flip)


def command(line):
    word, _, arg = line.strip().partition(" ")
    if word == "colour":
        paint(arg)
    elif word == "flip":
        if state["timer"] is not None:
            root.after_cancel(state["timer"])
            state["timer"] = None
        state["flip"] = int(arg)
        flip()
    settle()
    print("ok", flush=True)


def read_stdin():
    for line in sys.stdin:
        # Tk is not thread-safe: hand the line to the Tk loop.
        root.after(0, command, line)
    root.after(0, root.destroy)


def on_map(_event):
    root.focus_force()
    settle()
    with open(ready_file, "w", encoding="utf-8") as ready:
        ready.write("ready\n")


root.bind("<Key>", on_key)
root.bind("<Map>", on_map)
threading.Thread(target=read_stdin, daemon=True).start()
flip()
root.mainloop()
