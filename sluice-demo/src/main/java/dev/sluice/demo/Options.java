package dev.sluice.demo;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The options of one command, as given on the command line: {@code --name value} pairs and flags, each at most
 * once, checked against the options the command takes, and for a command that takes one, a single argument
 * without an option name (a job's id). Every problem is a {@link UsageException} whose message names the option
 * and what it allows.
 */
final class Options {
    /** A command line that cannot be run as given; the message says what is wrong, in one line. */
    static final class UsageException extends Exception {
        private static final long serialVersionUID = 1L;

        UsageException(String problem) {
            super(problem);
        }
    }

    /**
     * An option a command takes.
     *
     * @param name the option, {@code --count}
     * @param valueName what the usage calls its value, {@code N}; null for a flag, which takes none
     * @param allowed what its value may be, for messages ({@code a whole number from 1 to 10}); null for a flag
     * @param min the least whole number allowed, for {@link #wholeNumber}
     * @param max the largest
     */
    record Option(String name, String valueName, String allowed, long min, long max) {
        /** An option without a value. */
        static Option flag(String name) {
            return new Option(name, null, null, 0, 0);
        }

        /** An option whose value is text: {@code allowed} says which. */
        static Option text(String name, String valueName, String allowed) {
            return new Option(name, valueName, allowed, 0, 0);
        }

        /** An option whose value is a whole number from {@code min} to {@code max}. */
        static Option wholeNumber(String name, String valueName, long min, long max) {
            return new Option(name, valueName, "a whole number from " + min + " to " + max, min, max);
        }

        /** The option as the usage writes it: {@code --count N}, or {@code --echo}. */
        String synopsis() {
            return valueName == null ? name : name + " " + valueName;
        }
    }

    /**
     * The argument a command takes without an option name before it: any argument that does not begin with
     * {@code -}, or every argument after {@code --} (for a value that does).
     *
     * @param name what the usage calls it, {@code ID}
     * @param allowed what it may be, for messages ({@code a job's id})
     */
    record Positional(String name, String allowed) {}

    private final String command;
    private final Map<String, Option> allowed;
    private final Map<String, String> given;
    private final Positional positional;
    private final String positionalValue;
    private final boolean help;

    private Options(
            String command,
            Map<String, Option> allowed,
            Map<String, String> given,
            Positional positional,
            String positionalValue,
            boolean help) {
        this.command = command;
        this.allowed = allowed;
        this.given = given;
        this.positional = positional;
        this.positionalValue = positionalValue;
        this.help = help;
    }

    /**
     * The options {@code args} give {@code command}, from index {@code from} on; the command takes no positional
     * argument.
     *
     * @throws UsageException for an option the command does not take, one given twice, or one without its value
     */
    static Options parse(String command, List<Option> options, String[] args, int from) throws UsageException {
        return parse(command, options, null, args, from);
    }

    /**
     * The options {@code args} give {@code command}, from index {@code from} on, and the one positional argument
     * it takes if {@code positional} is not null.
     *
     * @throws UsageException for an option the command does not take, one given twice, or one without its value,
     *     or a second positional argument
     */
    static Options parse(String command, List<Option> options, Positional positional, String[] args, int from)
            throws UsageException {
        Map<String, Option> allowed = new LinkedHashMap<>();
        for (Option option : options) {
            allowed.put(option.name(), option);
        }
        Map<String, String> given = new HashMap<>();
        String positionalValue = null;
        boolean onlyPositionals = false;
        boolean help = false;
        for (int i = from; i < args.length; i++) {
            String arg = args[i];
            if (positional != null && (onlyPositionals || !arg.startsWith("-"))) {
                if (positionalValue != null) {
                    throw new UsageException(command + " takes one " + positional.name() + ", was given '"
                            + positionalValue + "' and '" + arg + "'");
                }
                positionalValue = arg;
                continue;
            }
            if (positional != null && arg.equals("--")) {
                onlyPositionals = true;
                continue;
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            Option option = allowed.get(arg);
            if (option == null) {
                throw new UsageException("unknown option '" + arg + "' for " + command + " (options: "
                        + allowed.values().stream().map(Option::synopsis).collect(Collectors.joining(", "))
                        + ")");
            }
            if (given.containsKey(arg)) {
                throw new UsageException(arg + " is given twice");
            }
            if (option.valueName() == null) {
                given.put(arg, "");
            } else {
                if (i + 1 == args.length) {
                    throw new UsageException(arg + " needs a value: " + option.allowed());
                }
                given.put(arg, args[++i]);
            }
        }
        return new Options(command, allowed, given, positional, positionalValue, help);
    }

    /** The positional argument given, or null if none was. */
    String positional() {
        return positionalValue;
    }

    /**
     * The positional argument, which the command needs.
     *
     * @throws UsageException if it was not given
     */
    String requiredPositional() throws UsageException {
        if (positional == null) {
            throw new IllegalArgumentException(command + " takes no positional argument");
        }
        if (positionalValue == null) {
            throw new UsageException(command + " needs " + positional.name() + " (" + positional.allowed() + ")");
        }
        return positionalValue;
    }

    /** Whether {@code --help} (or {@code -h}) was among the options. */
    boolean helpRequested() {
        return help;
    }

    /** Whether option {@code name} was given. */
    boolean has(String name) {
        return given.containsKey(option(name).name());
    }

    /** The value of option {@code name}, or null if it was not given. */
    String text(String name) {
        return given.get(option(name).name());
    }

    /**
     * The value of option {@code name}, which the command needs.
     *
     * @throws UsageException if it was not given
     */
    String required(String name) throws UsageException {
        Option option = option(name);
        String value = given.get(name);
        if (value == null) {
            throw new UsageException(command + " needs " + option.synopsis() + " (" + option.allowed() + ")");
        }
        return value;
    }

    /**
     * The value of option {@code name} as a whole number in its range, or {@code ifAbsent} if it was not given.
     *
     * @throws UsageException if it is not a whole number in the option's range
     */
    long wholeNumber(String name, long ifAbsent) throws UsageException {
        String value = text(name);
        return value == null ? ifAbsent : wholeNumberOf(name, value);
    }

    /**
     * The value of option {@code name} as a whole number in its range, which the command needs.
     *
     * @throws UsageException if it was not given, or is not a whole number in the option's range
     */
    long requiredWholeNumber(String name) throws UsageException {
        return wholeNumberOf(name, required(name));
    }

    private long wholeNumberOf(String name, String value) throws UsageException {
        Option option = option(name);
        try {
            long number = Long.parseLong(value);
            if (number >= option.min() && number <= option.max()) {
                return number;
            }
        } catch (NumberFormatException notAWholeNumber) {
            // said below
        }
        throw invalid(name, value);
    }

    /** The problem of option {@code name} given {@code value}, which is not one it allows. */
    UsageException invalid(String name, String value) {
        return new UsageException(name + " must be " + option(name).allowed() + ", was '" + value + "'");
    }

    private Option option(String name) {
        Option option = allowed.get(name);
        if (option == null) {
            throw new IllegalArgumentException(command + " takes no option " + name);
        }
        return option;
    }
}
