"""Every name the app keeps in ``st.session_state``, in one place: import the constant, never retype it.

Two kinds of keys:

* the session's own state (names start with ``_rbfviz_``, which no widget uses): the controls and
  their URL form, the upload, the class session, the watched training jobs, what the scrubber sent;
* widget keys (``w_<name>``): a widget's value lives under its key, and the code that sets or reads
  that value outside the widget (a reset, a callback) uses the same constant.

Tests read them too (``at.session_state[session_keys.CONTROLS]``).
"""

# --- the controls (ui.state) -----------------------------------------------------------------------

CONTROLS = "_rbfviz_controls"  # the current ui.state.Controls (not a widget key, so it survives pages)
QUERY = "_rbfviz_query"  # the query dict last read from or written to the URL
QUERIES_WRITTEN = "_rbfviz_queries_written"  # the last few query dicts written to the URL, oldest first
# the Controls as last saved: if the session's controls differ from it at the start of a run, a
# widget callback changed them in this rerun, and that change wins over the URL of the request
SAVED_CONTROLS = "_rbfviz_saved"
NOTICES = "_rbfviz_notices"  # messages about the address, shown once
VIEW = "_rbfviz_view"  # the page's title, for figure file names (ui.page)

WIDGET_PREFIX = "w_"


def widget(field: str) -> str:
    """The sidebar widget's key of a Controls field (``w_dataset``, ``w_k``, ...)."""
    return f"{WIDGET_PREFIX}{field}"


# --- the sidebar's mark (ui.sidebar_mark) ------------------------------------------------------------

SIDEBAR_MARK = "rbfviz_sidebar_mark"  # hidden widget: the mark the browser last received (not w_: no control)
SIDEBAR_MARK_BOX = "rbfviz_sidebar_mark_box"  # its container, hidden by CSS
SIDEBAR_MARK_SENT = "_rbfviz_sidebar_mark_sent"  # the last mark sent
SIDEBAR_MARK_DUE = "_rbfviz_sidebar_mark_due"  # this run changed a control on screen or the address
SIDEBAR_CHANGED = "_rbfviz_sidebar_changed"  # {Controls field: the mark of the run that changed it on screen}


# --- the upload (ui.upload) -------------------------------------------------------------------------

UPLOAD = "_rbfviz_upload"  # the session's uploaded points (ui.upload.Upload), never in the URL
UPLOAD_ERROR = "_rbfviz_upload_error"  # (file hash, file name, message) of the rejected file in the uploader
UPLOAD_SEEN = "_rbfviz_upload_seen"  # hash of the file in the uploader that was already handled
UPLOAD_COLUMN_ERROR = "_rbfviz_upload_column_error"
UPLOAD_SUCCESS = "_rbfviz_upload_success"  # a one-time message after a file was loaded
UPLOAD_MODE = "w_upload_mode"  # widget: "pca" or "columns"
UPLOAD_X = "w_upload_x"  # widgets: the chosen columns
UPLOAD_Y = "w_upload_y"

# --- the pages -------------------------------------------------------------------------------------

PICK_ROUND = "_rbfviz_pick_round"  # Explorer: part of the plot's key, a new round starts with no selection
TYPED_PICKS = "w_typed_picks"  # Explorer: widget, the typed point numbers
LESSON_STEP = "_rbfviz_lesson_step"  # Lessons: the step on screen
LESSON_CHOICE = "w_lesson"  # Lessons: widget, the step chooser
K_MAX = "how_many_k_max"  # How many clusters: widget, the largest k compared
# Step by step: the session's last replay, so a click continues from there (ui.compute.stepper_replay)
LAST_REPLAY = "_rbfviz_last_replay"
STEP_PLAYING = "_rbfviz_step_playing"  # Step by step: Play is running (never in the URL: links open paused)
STEP_PLAYED_AT = "_rbfviz_step_played_at"  # Step by step: time.monotonic() of Play's last step
STEP_PLAY_NOTE = "_rbfviz_step_play_note"  # Step by step: why Play paused by itself, said once
STEP_SCRUBBER = "w_step_at"  # Step by step: widgets, the iteration shown, Play's speed and its steps
STEP_SPEED = "w_step_speed"
STEP_PLAY_STEPS = "w_step_play"
RACE = "_rbfviz_race"  # Annealing: ((data, k), N) of the race of restarts this session asked for
RACE_N = "w_race_n"  # Annealing: widget, the number of restarts N
FAMILY_OPEN = "w_family_open"  # Stability: widget, the α-entmax family's expander is open (measured then)
# the settings this session chose to compute over the work budget (ui.budget)
BUDGET_CONFIRMED = "_rbfviz_budget_confirmed"
BUDGET_CANCELLED = "_rbfviz_budget_cancelled"  # (view name, setting, seconds it ran) of the last Cancel


def lesson_verdict(step: str) -> str:
    """Lessons: the checked answer of a step (its key, rbfviz.views.lessons.Step.key)."""
    return f"lesson_{step}_verdict"


# --- the class session (ui.classroom) ---------------------------------------------------------------

CLASS_TEACHER = "_rbfviz_class_teacher"  # (code, secret)
CLASS_SEAT = "_rbfviz_class_seat"
CLASS_JOINED = "_rbfviz_class_joined"  # the room this session has joined
CLASS_SEEN = "_rbfviz_class_seen"  # the room's question this student's page last followed
CLASS_MESSAGE = "_rbfviz_class_message"
CLASS_COOKIE_TRIED = "_rbfviz_class_cookie_tried"  # this session has looked for a room in the cookie
CLASS_COOKIE_WRITE = "_rbfviz_class_cookie_write"  # (secret or "", seconds to keep it) to send once
CLASS_RESUMED = "_rbfviz_class_resumed"  # the room just resumed, for one "your room is back" notice

# --- training on the Neural network page (ui.training) ----------------------------------------------

TRAINING_WATCHER = "_rbfviz_watcher"  # this session's id as a watcher of training jobs


def training_job(section: str) -> str:
    """The training job a section of the page watches."""
    return f"_rbfviz_job_{section}"


def training_left(section: str) -> str:
    """The key of the run a section's session stopped watching (it may still run for others)."""
    return f"_rbfviz_left_{section}"


# --- the scrubber (ui.scrub) -------------------------------------------------------------------------

SCRUB_SENT = "_rbfviz_scrub_sent"  # component key -> fingerprint of the payload last sent to this session
SCRUB_SHOWN = "_rbfviz_scrub_shown"  # (component key, setting) of the complete payload this session drew last

# --- hands on the plane (ui.plane_tools) --------------------------------------------------------------

PLANE_MODE = "w_plane_mode"  # Explorer, Step by step: widget, what a click on the plane does
CENTRE_CHOICE = "w_centre_choice"  # widget: the placed centre the x and y inputs edit (keyboard path)
CENTRE_X = "w_centre_x"  # widgets: its coordinates
CENTRE_Y = "w_centre_y"
EDITOR = "plane_editor"  # the plane editor component (ui.plane_edit)


def editor_seq(editor: str) -> str:
    """The number of the last list of the plane editor ``editor`` the page applied (ui.plane_edit)."""
    return f"_rbfviz_{editor}_seq"
